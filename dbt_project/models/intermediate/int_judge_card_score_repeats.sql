-- One row per (study, judge configuration, review, repeat, score): the review-level scores whose
-- repeats a judge card's test-retest ICC and α are computed from (doa, mcs, ns; null scores left out).
with

depth as (

    select * from {{ ref('int_quality_depth_repeats') }}

),

constructiveness as (

    select * from {{ ref('int_quality_constructiveness_repeats') }}

),

novelty as (

    select * from {{ ref('int_quality_novelty_repeats') }}

),

unioned as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        repeat_index,
        'doa' as metric,
        doa as score_value
    from depth
    union all
    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        repeat_index,
        'mcs' as metric,
        mcs as score_value
    from constructiveness
    union all
    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        repeat_index,
        'ns' as metric,
        ns as score_value
    from novelty

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key, repeat_index, metric) as judge_card_score_id,
        *

    from unioned
    where repeat_index is not null and score_value is not null

)

select * from final
