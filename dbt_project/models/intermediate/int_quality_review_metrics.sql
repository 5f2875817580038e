-- The four PRISM dimensions in long form: one row per (study, judge configuration, review, metric),
-- and per pool for the flaws metrics (a human review is scored in one pool per system under test).
-- value is the mean over the judge's repeats; a null value always has a null_reason: the review's, or
-- for a flaws metric of a scored review, the metric's own (its denominator is empty).
-- A table, not a view: a dozen data tests and quality_comparison read it, and as a view each of
-- them would re-run the whole judgments chain (2.3 s of every build).
{{ config(materialized='table') }}

with

depth as (

    select * from {{ ref('int_quality_depth') }}

),

novelty as (

    select * from {{ ref('int_quality_novelty') }}

),

constructiveness as (

    select * from {{ ref('int_quality_constructiveness') }}

),

flaws as (

    select * from {{ ref('int_quality_flaws') }}

),

depth_metrics as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        paper_id,
        source,
        system,
        n_repeats,
        null_reason as row_null_reason,
        -- one row per metric: metric, value, metric_null_reason
        unnest(  -- noqa: AL03
            [
                struct_pack(
                    metric := 'doa', value := doa, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'premise_ratio', value := premise_ratio, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'grounding_norm', value := grounding_norm, metric_null_reason := cast(null as varchar)
                )
            ],
            recursive := true
        )

    from depth

),

novelty_metrics as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        paper_id,
        source,
        system,
        n_repeats,
        null_reason as row_null_reason,
        -- one row per metric: metric, value, metric_null_reason
        unnest(  -- noqa: AL03
            [
                struct_pack(
                    metric := 'ns', value := ns, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'sr', value := sr, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'ssr', value := ssr, metric_null_reason := cast(null as varchar)
                )
            ],
            recursive := true
        )

    from novelty

),

constructiveness_metrics as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        paper_id,
        source,
        system,
        n_repeats,
        null_reason as row_null_reason,
        -- one row per metric: metric, value, metric_null_reason
        unnest(  -- noqa: AL03
            [
                struct_pack(
                    metric := 'mcs', value := mcs, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'share_actionable', value := share_actionable, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'share_solution', value := share_solution, metric_null_reason := cast(null as varchar)
                ),
                struct_pack(
                    metric := 'share_clc_06', value := share_clc_06, metric_null_reason := cast(null as varchar)
                )
            ],
            recursive := true
        )

    from constructiveness

),

flaws_metrics as (

    select
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        paper_id,
        source,
        system,
        pool_key,
        pool_system,
        n_repeats,
        null_reason as row_null_reason,
        -- one row per metric: metric, value, metric_null_reason
        unnest(  -- noqa: AL03
            [
                struct_pack(
                    metric := 'recall_critical', value := recall_critical, metric_null_reason := 'no_critical_flaws'
                ),
                struct_pack(
                    metric := 'recall_minor', value := recall_minor, metric_null_reason := 'no_minor_flaws'
                ),
                struct_pack(
                    metric := 'recall_critical_weighted', value := recall_critical_weighted,
                    metric_null_reason := 'no_critical_flaws'
                ),
                struct_pack(
                    metric := 'recall_minor_weighted', value := recall_minor_weighted,
                    metric_null_reason := 'no_minor_flaws'
                ),
                struct_pack(
                    metric := 'hallucination_rate', value := hallucination_rate, metric_null_reason := 'no_flaws_raised'
                ),
                struct_pack(
                    metric := 'ncps', value := ncps, metric_null_reason := ncps_null_reason
                )
            ],
            recursive := true
        )

    from flaws

),

unioned as (

    select * from depth_metrics
    union all by name
    select * from novelty_metrics
    union all by name
    select * from constructiveness_metrics
    union all by name
    select * from flaws_metrics

),

final as (

    select
        concat_ws('|', study_id, judge_config, pool_key, review_key, metric) as review_metric_id,
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        paper_id,
        source,
        system,
        pool_key,
        pool_system,
        metric,
        cast(value as double) as value,
        case when value is null then coalesce(row_null_reason, metric_null_reason) end as null_reason,
        n_repeats

    from unioned

)

select * from final
