-- One row per (study, reviewer configuration, stress-suite variant): the configuration's mean score on the
-- variant and on its base paper (each the mean of its parsed samples the study counts), the paired shift
-- variant − original, and, for a soundness edit, how many of its reviews of the variant a judge read and
-- found mentioning the inserted problem. A built variant counts in a study that covers it and its base; one
-- that was not built is no paper, so it counts (with its reason, scores null) in the study whose run tried
-- to build it, when the base is that study's. Only the study's own reviewers (source peerlake): imported
-- reviews never read a variant.
with

variants as (

    select * from {{ ref('int_stress_variants') }}

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}
    where source = 'peerlake'

),

scores as (

    select * from {{ ref('int_study_review_scores') }}
    where is_parsed and overall_score is not null

),

study_reviews as (

    select * from {{ ref('int_study_reviews') }}
    where source = 'peerlake'

),

mention_judgments as (

    -- the [stress] mention judge: one judgment per (review of a soundness variant, repeat), subject = the
    -- review's key, answer {"mentions": bool, "quote": ...} as its first unit
    select
        judge_config,
        subject_key as review_key,
        repeat_index,
        try_cast(units -> 0 ->> 'mentions' as boolean) as mentions

    from {{ ref('int_judgments_latest') }}
    where judge = 'stress_mention'

),

contradiction_answers as (

    -- the contradiction experiment's own detection judge, for a result_contradicted variant the mention
    -- judge did not read (already scoped to the study's reviews and samples)
    select * from {{ ref('int_contradiction_detections') }}
    where role = 'detection'

),

in_study as (

    select
        base_paper.study_id,
        variants.*

    from variants
    inner join study_papers as base_paper on variants.base_paper_id = base_paper.paper_id
    left join study_papers as variant_paper
        on base_paper.study_id = variant_paper.study_id and variants.variant_id = variant_paper.paper_id
    where
        (variants.is_built and variant_paper.paper_id is not null)
        or (not variants.is_built and variants.recorded_for_study = base_paper.study_id)

),

pairs as (

    select
        in_study.*,
        study_reviewers.reviewer_config

    from in_study
    inner join study_reviewers on in_study.study_id = study_reviewers.study_id

),

own_scores as (

    select
        study_id,
        reviewer_config,
        paper_id,
        avg(overall_score) as score,
        count(*) as n_scored

    from scores
    group by study_id, reviewer_config, paper_id

),

labels as (

    select
        study_id,
        reviewer_config,
        any_value(reviewer_label) as reviewer

    from study_reviews
    group by study_id, reviewer_config

),

detection_answers as (

    -- both judges' answers in one shape, so one aggregation counts them; judge_rank says which a
    -- variant's counts come from when both read it: the mention judge first, the detection judge for a
    -- contradiction it did not read
    select
        study_reviews.study_id,
        study_reviews.reviewer_config,
        study_reviews.paper_id as variant_id,
        'stress_mention' as detection_judge,
        1 as judge_rank,
        mention_judgments.judge_config,
        mention_judgments.review_key,
        mention_judgments.mentions as is_yes

    from mention_judgments
    inner join study_reviews on mention_judgments.review_key = study_reviews.review_key

    union all

    select
        study_id,
        reviewer_config,
        variant_id,
        'detection' as detection_judge,
        2 as judge_rank,
        judge_config,
        review_key,
        identified as is_yes

    from contradiction_answers

),

answers_per_review as (

    -- a review mentions the problem when at least half of the judge's answered repeats say so (as the
    -- injection judge is read); the study's reviews of the variant only
    select
        study_id,
        reviewer_config,
        variant_id,
        detection_judge,
        judge_rank,
        judge_config,
        review_key,
        avg(cast(is_yes as integer)) >= 0.5 as is_mentioned

    from detection_answers
    group by all
    having count(is_yes) > 0

),

judge_per_study as (

    -- one configuration of each judge per study: the first by id (a study normally runs one)
    select
        study_id,
        detection_judge,
        min(judge_config) as judge_config
    from answers_per_review
    group by study_id, detection_judge

),

detection_counts as (

    select
        answers_per_review.study_id,
        answers_per_review.reviewer_config,
        answers_per_review.variant_id,
        answers_per_review.detection_judge,
        any_value(answers_per_review.judge_config) as detection_judge_config,
        count(*) as n_reviews_judged,
        count(*) filter (where answers_per_review.is_mentioned) as n_reviews_mentioning

    from answers_per_review
    inner join judge_per_study
        on
            answers_per_review.study_id = judge_per_study.study_id
            and answers_per_review.detection_judge = judge_per_study.detection_judge
            and answers_per_review.judge_config = judge_per_study.judge_config
    group by
        answers_per_review.study_id,
        answers_per_review.reviewer_config,
        answers_per_review.variant_id,
        answers_per_review.detection_judge,
        answers_per_review.judge_rank
    qualify
        row_number() over (
            partition by answers_per_review.study_id, answers_per_review.reviewer_config, answers_per_review.variant_id
            order by answers_per_review.judge_rank
        ) = 1

),

final as (

    select
        concat_ws('|', pairs.study_id, pairs.reviewer_config, pairs.variant_id) as stress_pair_id,
        pairs.study_id,
        pairs.reviewer_config,
        labels.reviewer,
        pairs.variant_id,
        pairs.variant_key,
        pairs.base_paper_id,
        pairs.variant_kind,
        pairs.experiment_config,
        pairs.family,
        pairs.edit,
        pairs.problem,
        pairs.is_built,
        pairs.not_built_reason,
        variant_scores.score as score_variant,
        original_scores.score as score_original,
        variant_scores.score - original_scores.score as shift,
        coalesce(variant_scores.n_scored, 0) as n_variant_scored,
        coalesce(original_scores.n_scored, 0) as n_original_scored,
        -- detection is asked of soundness edits only
        case when pairs.family = 'soundness' then detection_counts.detection_judge end as detection_judge,
        case
            when pairs.family = 'soundness' then detection_counts.detection_judge_config
        end as detection_judge_config,
        case
            when pairs.family = 'soundness' then coalesce(detection_counts.n_reviews_judged, 0)
        end as n_reviews_judged,
        case
            when pairs.family = 'soundness' then coalesce(detection_counts.n_reviews_mentioning, 0)
        end as n_reviews_mentioning

    from pairs
    left join own_scores as variant_scores
        on
            pairs.study_id = variant_scores.study_id and pairs.reviewer_config = variant_scores.reviewer_config
            and pairs.variant_id = variant_scores.paper_id and pairs.is_built
    left join own_scores as original_scores
        on
            pairs.study_id = original_scores.study_id and pairs.reviewer_config = original_scores.reviewer_config
            and pairs.base_paper_id = original_scores.paper_id and pairs.is_built
    left join labels on pairs.study_id = labels.study_id and pairs.reviewer_config = labels.reviewer_config
    left join detection_counts
        on
            pairs.study_id = detection_counts.study_id and pairs.reviewer_config = detection_counts.reviewer_config
            and pairs.variant_id = detection_counts.variant_id

)

select * from final
