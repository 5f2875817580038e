-- The review-quality judges' metrics in long form: one row per (study, judge configuration, review, metric),
-- and per pool for a pooled judge (flaws: a human review is scored in one pool per system under test).
-- The judges and their metrics are dbt_project.yml's quality_judges (macros/quality_judges.sql).
-- value is the mean over the judge's repeats; a null value always has a null_reason: the review's, or
-- for a metric of a scored review, the metric's own (its denominator is empty).
-- A table, not a view: a dozen data tests and quality_comparison read it, and as a view each of
-- them would re-run the whole judgments chain (2.3 s of every build).
{{ config(materialized='table') }}
-- depends_on: {{ ref('int_quality_declared') }}

with

{% for judge in quality_judges() %}
    {{ judge.judge }}_metrics as (

        {{ review_metrics_long(judge) }}

    ),

{% endfor %}
unioned as (

    {% for judge in quality_judges() %}
        select * from {{ judge.judge }}_metrics
        {{ "union all by name" if not loop.last }}
    {% endfor %}

),

final as (

    select
        concat_ws('|', study_id, judge_config, pool_key, review_key, metric) as review_metric_id,
        {%- for column in judged_review_columns() + ['paper_id', 'source', 'system', 'pool_key', 'pool_system'] %}
            {{ column }},
        {%- endfor %}
        metric,
        cast(value as double) as value,
        case when value is null then coalesce(row_null_reason, metric_null_reason) end as null_reason,
        n_repeats

    from unioned

)

select * from final
