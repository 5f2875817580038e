{#- The review-quality judges, from dbt_project.yml's `quality_judges` var (written from the judge modules'
    declarations, judging.registry.quality_declaration, and held equal to them by a test), then the plug-in
    judges a run hands over in $PEERLAKE_PLUGIN_JUDGES (orchestration.dbt_manifest.plugin_judges). A judge's
    per-review model is int_quality_<judge> (int_quality_<judge>_repeats per repeat), or, for a judge that
    declares its units and each metric's SQL (`units`: every plug-in judge), its rows of int_quality_declared
    (int_quality_declared_repeats); the long-form models below are generated from this list, so adding a
    judge edits none of them. -#}
{% macro quality_judges() %}
    {{ return(var('quality_judges') + fromjson(env_var('PEERLAKE_PLUGIN_JUDGES', '[]'))) }}
{% endmacro %}

{#- Every quality judge's metric names, in the judges' order. -#}
{% macro quality_metric_names() %}
    {%- set names = [] -%}
    {%- for judge in quality_judges() -%}
        {%- for metric in judge.metrics -%}
            {%- do names.append(metric.name) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(names) }}
{% endmacro %}

{#- The judges whose metrics are SQL over their units (no dbt model of their own). -#}
{% macro declared_judges() %}
    {{ return(quality_judges() | selectattr('units', 'defined') | list) }}
{% endmacro %}

{#- A declared judge's unit as from_json reads a judgment's units: '[{"field": "TYPE", ...}]'. -#}
{% macro units_schema(judge) %}
    {{- return('[' ~ tojson(judge.units) ~ ']') -}}
{% endmacro %}

{#- The columns that say whose judgment of which review a row is, first in every long-form quality model. -#}
{% macro judged_review_columns() %}
    {{ return(['study_id', 'judge', 'judge_config', 'judge_provider', 'judge_model', 'review_key']) }}
{% endmacro %}

{#- The judges with one judgment per judged review (not pooled): the judge and its per-review step. -#}
{% macro per_review_judges() %}
    {{ return(quality_judges() | rejectattr('pooled', 'defined') | list) }}
{% endmacro %}

{#- The judges whose card retests a review-level score (card_score). -#}
{% macro card_score_judges() %}
    {{ return(quality_judges() | selectattr('card_score', 'defined') | list) }}
{% endmacro %}

{#- A metric's reason when it is null on a scored review: a fixed reason, a column of the per-review
    model, or none (a null metric then has only its review's reason). -#}
{% macro metric_null_reason(metric) %}
    {%- if metric.null_reason is defined -%}
        '{{ metric.null_reason }}'
    {%- elif metric.null_reason_column is defined -%}
        {{ metric.null_reason_column }}
    {%- else -%}
        cast(null as varchar)
    {%- endif -%}
{% endmacro %}

{#- A judge's per-review model (int_quality_<judge>), or with `repeats` its per-repeat one; for a declared
    judge, its card score's rows of int_quality_declared(_repeats), the score (and per review its SD
    across repeats, <score>_sd) as columns of the score's name, as the judges' own models have them. -#}
{% macro judge_relation(judge, repeats=false) %}
    {%- if judge.units is not defined -%}
        {{ ref('int_quality_' ~ judge.judge ~ ('_repeats' if repeats else '')) }}
    {%- else -%}
        (
            select
                *,
                value as {{ judge.card_score }}
                {%- if not repeats %},
                    value_sd as {{ judge.card_score }}_sd
                {%- endif %}
            from {{ ref('int_quality_declared' ~ ('_repeats' if repeats else '')) }}
            where judge = '{{ judge.judge }}' and metric = '{{ judge.card_score }}'
        ) as {{ judge.judge }}_{{ judge.card_score }}
    {%- endif -%}
{% endmacro %}

{#- One row per (review, metric) of a judge's per-review model: metric, value, metric_null_reason. -#}
{% macro review_metrics_long(judge) %}
    {%- if judge.units is defined %}
    select
        {%- for column in judged_review_columns() + ['paper_id', 'source', 'system'] %}
        {{ column }},
        {%- endfor %}
        n_repeats,
        null_reason as row_null_reason,
        metric,
        value,
        metric_null_reason

    from {{ ref('int_quality_declared') }}
    where judge = '{{ judge.judge }}'
    {%- else %}
    {%- set pool_columns = ['pool_key', 'pool_system'] if judge.pooled is defined else [] %}
    select
        {%- for column in judged_review_columns() + ['paper_id', 'source', 'system'] + pool_columns %}
        {{ column }},
        {%- endfor %}
        n_repeats,
        null_reason as row_null_reason,
        -- one row per metric: metric, value, metric_null_reason
        unnest(  -- noqa: AL03
            [
                {%- for metric in judge.metrics %}
                struct_pack(
                    metric := '{{ metric.name }}',
                    value := {{ metric.name }},
                    metric_null_reason := {{ metric_null_reason(metric) }}
                ){{ "," if not loop.last }}
                {%- endfor %}
            ],
            recursive := true
        )

    from {{ ref('int_quality_' ~ judge.judge) }}
    {%- endif %}
{% endmacro %}

{#- The first columns of a per-review judge model (int_quality_<judge>), aggregating int_quality_<judge>_repeats
    by (study, judge configuration, review) and the columns `by` (int_quality_declared: the metric): its key,
    whose review it is, which judge read it, and how many repeats judged it and scored `score`. -#}
{% macro judged_review_head(key, score, by=[]) %}
        concat_ws('|', study_id, judge_config, review_key {%- for column in by %}, {{ column }}{% endfor %}) as {{ key }},
        study_id,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(system) as system,
        review_key,
        {{ judge_identity() }},
        {%- for column in by %}
        {{ column }},
        {%- endfor %}
        count(judgment_id) as n_repeats,
        count({{ score }}) as n_repeats_scored
{%- endmacro %}

{#- Which judge read the review, grouped by judge configuration: the same in every repeat. -#}
{% macro judge_identity() %}
        any_value(judge) as judge,
        judge_config,
        any_value(judge_provider) as judge_provider,
        any_value(judge_model) as judge_model,
        any_value(fields_used) as fields_used
{%- endmacro %}

{#- Whether the review has no `score` and why: all repeats null, the first repeat's reason speaks for it. -#}
{% macro judged_review_null(score) %}
        avg({{ score }}) is null as is_null,
        case
            when avg({{ score }}) is null then
                arg_min(null_reason, coalesce(repeat_index, -1)) filter (where null_reason is not null)
        end as null_reason
{%- endmacro %}
