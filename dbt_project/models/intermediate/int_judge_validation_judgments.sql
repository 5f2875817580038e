-- One row per (study, depth judge configuration, annotated review, repeat) the study's judgments run
-- covered: the depth judgments validated against human spans. A review listed without a judgment
-- keeps one row with is_judged false (int_judged_reviews: null_reason 'not_judged').
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'depth'

),

annotated as (

    select distinct
        review_key,
        dataset,
        dataset_split

    from {{ ref('int_judge_validation_gold_spans') }}

),

final as (

    select
        judged.judged_review_id,
        judged.study_id,
        judged.judge_config,
        judged.judge_provider,
        judged.judge_model,
        judged.review_key,
        judged.repeat_index,
        annotated.dataset,
        annotated.dataset_split,
        judged.is_judged,
        judged.null_reason,
        judged.units,
        -- the judge read a prefix of long reviews (judging.spans.judged_text): a gold span starting
        -- beyond it could not be found, so it is left out of recall (counted as unseen)
        coalesce(
            cast(judged.inputs ->> 'chars_judged' as integer), cast(judged.inputs ->> 'chars' as integer)
        ) as chars_judged

    from judged
    inner join annotated on judged.review_key = annotated.review_key

)

select * from final
