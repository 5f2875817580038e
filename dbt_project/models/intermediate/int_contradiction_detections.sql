-- One row per (study, detection judge configuration, item, review, repeat): what the detection judge
-- (judging.detection, step 'identify', subject '<variant_id>|<review_key>') answered, scoped by
-- int_study_reviews: the review's paper and the item's variant are both the study's papers, the
-- review's configuration is one of the study's reviewers and its sample is below the study's K
-- (human reviews are not a reviewer configuration: they are left out).
-- role 'detection': a review of the variant; 'audit': a review of the unmodified base paper (the
-- right answer is always no). identified: the judge's answer; false for a review with no text (it
-- identified nothing: no call was made); null when the answer is unusable (unparseable, no
-- paragraphs). verified_identified: a human's label for the subject (dataset 'detection_verified').
with

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'detection' and step = 'identify'

),

items as (

    select * from {{ ref('int_contradiction_items') }}
    where is_built

),

study_reviews as (

    -- a reviewer configuration's or imported system's reviews, not the human reviews
    select * from {{ ref('int_study_reviews') }}
    where source != 'human'

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

labels as (

    select * from {{ ref('stg_events__reference_labels') }}
    where dataset = 'detection_verified'

),

answers as (

    select
        judgment_id,
        judge_config,
        subject_key,
        -- a variant id has no '|' (judging.benchmark: "<base>~contradiction-<key10>")
        split_part(subject_key, '|', 1) as variant_id,
        substr(subject_key, strpos(subject_key, '|') + 1) as review_key,
        paper_id as review_paper_id,
        repeat_index,
        status,
        null_reason,
        case
            when status = 'ok' then cast(units -> 0 ->> 'identified' as boolean)
            when null_reason = 'empty_review' then false
        end as identified

    from judgments

),

newest_labels as (

    select
        subject_key,
        cast(label ->> '$.identified' as boolean) as verified_identified
    from labels
    qualify row_number() over (
        partition by subject_key order by imported_at desc, reference_label_id desc
    ) = 1

),

scoped as (

    -- one row per (study, judgment): a judgment is unique, its item and study review are (study_reviews
    -- has one row per study and review key)
    select
        study_reviews.study_id,
        answers.*,
        case when answers.review_paper_id = items.variant_id then 'detection' else 'audit' end as role,
        items.base_paper_id,
        items.item_id,
        items.distance,
        items.node_type,
        items.node_level,
        items.validation_status,
        items.is_validated,
        study_reviews.source,
        study_reviews.reviewer_config,
        study_reviews.sample_index

    from answers
    inner join items using (variant_id)
    inner join study_reviews
        on answers.review_key = study_reviews.review_key and answers.review_paper_id = study_reviews.paper_id
    inner join study_papers as item_papers
        on
            study_reviews.study_id = item_papers.study_id
            and answers.variant_id = item_papers.paper_id
    where answers.review_paper_id in (items.variant_id, items.base_paper_id)

),

final as (

    select
        md5(concat_ws('|', scoped.study_id, scoped.judgment_id)) as contradiction_detection_judgment_id,
        scoped.*,
        newest_labels.verified_identified

    from scoped
    left join newest_labels using (subject_key)

)

select * from final
