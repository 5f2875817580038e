-- Per (study, judge configuration, metric): how much a judge's own score for one review varies across
-- its repeats (doa, mcs, ns), next to how much the scores vary between reviews. Only reviews with at
-- least two scored repeats enter the within-review SDs.
with

depth as (

    select * from {{ ref('int_quality_depth') }}

),

constructiveness as (

    select * from {{ ref('int_quality_constructiveness') }}

),

novelty as (

    select * from {{ ref('int_quality_novelty') }}

),

per_review as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        'doa' as metric,
        n_repeats_scored,
        doa as score,
        doa_sd as within_review_sd
    from depth
    union all
    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        'mcs' as metric,
        n_repeats_scored,
        mcs as score,
        mcs_sd as within_review_sd
    from constructiveness
    union all
    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        'ns' as metric,
        n_repeats_scored,
        ns as score,
        ns_sd as within_review_sd
    from novelty

),

final as (

    select
        concat_ws('|', study_id, judge_config, metric) as judge_repeatability_id,
        study_id,
        any_value(judge) as judge,
        judge_config,
        any_value(judge_provider) as judge_provider,
        any_value(judge_model) as judge_model,
        metric,
        count(*) as n_reviews,
        count(score) as n_reviews_scored,
        count(*) filter (where n_repeats_scored >= 2) as n_reviews_repeated,
        max(n_repeats_scored) as repeats_max,
        avg(within_review_sd) filter (where n_repeats_scored >= 2) as within_review_sd_mean,
        max(within_review_sd) filter (where n_repeats_scored >= 2) as within_review_sd_max,
        -- the spread a quality difference between reviews has to beat the judge's noise against
        avg(score) as score_mean,
        stddev_samp(score) as between_review_sd

    from per_review
    group by study_id, judge_config, metric

)

select * from final
