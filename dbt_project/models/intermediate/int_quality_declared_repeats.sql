-- One row per (study, judge configuration, review, repeat, metric) for the judges that declare their
-- metrics as SQL over their units instead of a dbt model of their own (plug-in judges: UNITS and each
-- ReviewMetric's sql in the module; macros/quality_judges.sql, declared_judges). A metric is its SQL
-- aggregate over the judgment's units, one row per unit as the struct `unit` (a judgment without units
-- aggregates one null unit: count(unit) is 0). A review with no usable judgment keeps one row per metric,
-- value null, with the review's reason. Typed and empty when no judge is declared so.
-- The dependency is stated whatever the branch: the asset graph (parsed once, cached) must not depend
-- on whether a plug-in judge is declared in this process.
-- depends_on: {{ ref('int_judged_reviews') }}
{%- set declared = declared_judges() %}
{%- if declared | length == 0 %}
    select
        cast(null as varchar) as declared_repeat_id,
        {%- for column in judged_review_columns() + ['paper_id', 'source', 'system', 'fields_used'] %}
            cast(null as varchar) as {{ column }},
        {%- endfor %}
        cast(null as integer) as repeat_index,
        cast(null as varchar) as judgment_id,
        cast(null as varchar) as metric,
        cast(null as double) as value,
        cast(null as varchar) as null_reason,
        cast(null as varchar) as metric_null_reason
    where false
{%- else %}
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge in (
        {%- for judge in declared -%}
            '{{ judge.judge }}'{{ ", " if not loop.last }}
        {%- endfor -%}
    )

),

declared_metrics as (

    -- judge, metric, the reason a null value of a judged review has (the declared one, else no_units)
    {%- for judge in declared %}
        {%- for metric in judge.metrics %}
    select
        '{{ judge.judge }}' as judge,
        '{{ metric.name }}' as metric,
        '{{ metric.null_reason if metric.null_reason is defined else "no_units" }}' as metric_null_reason
            {{- " union all" if not loop.last }}
        {%- endfor %}
        {{- " union all" if not loop.last }}
    {%- endfor %}

),

{% for judge in declared %}
    {{ judge.judge }}_units as (

        select
            judged_review_id,
            unnest(from_json(units, '{{ units_schema(judge) }}')) as unit  -- noqa: AL03

        from judged
        where judge = '{{ judge.judge }}' and null_reason is null

    ),

    {{ judge.judge }}_values as (

        select
            judged.judged_review_id,
            unnest(  -- noqa: AL03
                [
                    {%- for metric in judge.metrics %}
                    struct_pack(metric := '{{ metric.name }}', value := cast(({{ metric.sql }}) as double))
                        {{- "," if not loop.last }}
                    {%- endfor %}
                ],
                recursive := true
            )

        from judged
        left join {{ judge.judge }}_units as u on judged.judged_review_id = u.judged_review_id
        where judged.judge = '{{ judge.judge }}' and judged.null_reason is null
        group by judged.judged_review_id

    ),

{% endfor %}
metric_values as (

    {% for judge in declared %}
        select * from {{ judge.judge }}_values
        {{ "union all" if not loop.last }}
    {% endfor %}

),

final as (

    select
        concat_ws('|', judged.judged_review_id, declared_metrics.metric) as declared_repeat_id,
        {%- for column in judged_review_columns() + ['paper_id', 'source', 'system', 'fields_used'] %}
            judged.{{ column }},
        {%- endfor %}
        judged.repeat_index,
        judged.judgment_id,
        declared_metrics.metric,
        metric_values.value,
        judged.null_reason,
        declared_metrics.metric_null_reason

    from judged
    inner join declared_metrics on judged.judge = declared_metrics.judge
    left join metric_values
        on
            judged.judged_review_id = metric_values.judged_review_id
            and declared_metrics.metric = metric_values.metric

)

select * from final
{%- endif %}
