-- One row per (study, judged review): each quality judge's headline metrics side by side (the metrics
-- marked headline in dbt_project.yml's quality_judges), and why any of them is null, per judge. A human
-- review sits in one flaw pool per system under test: a pooled judge's figures are averaged over its pools,
-- and over the study's judge configurations when it has several. What the report and `peerlake report`
-- show as "the PRISM profile of a review"; flagged_judges names the judges whose configuration fails a
-- [judging.require] check of the study (judge_card_checks), as judge_flag does in the per-judge marts.
with

metrics as (

    select * from {{ ref('int_quality_headline_metrics') }}

),

flags as (

    select
        study_id,
        judge_config,
        true as is_flagged

    from {{ ref('judge_card_checks') }}
    where is_judge_unvalidated
    group by study_id, judge_config

),

flagged as (

    select
        metrics.*,
        coalesce(flags.is_flagged, false) as is_flagged

    from metrics
    left join flags on metrics.study_id = flags.study_id and metrics.judge_config = flags.judge_config

),

final as (

    select
        concat_ws('|', study_id, review_key) as quality_review_id,
        study_id,
        review_key,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(system) as system,
        {%- for judge in quality_judges() %}
            {%- for metric in judge.metrics if metric.headline is defined %}
                avg(value) filter (where judge = '{{ judge.judge }}' and metric = '{{ metric.name }}')
                    as {{ metric.name }},
            {%- endfor %}
        {%- endfor %}
        -- per judge, the distinct reasons its headline metrics are null ("depth: not_judged; flaws: ...");
        -- not_read for a judge with no row for the review (the study does not name it, or its
        -- [judging] scope leaves the review out)
        nullif(
            concat_ws(
                '; ',
                {%- for judge in quality_judges() %}
                    '{{ judge.judge }}: ' || case
                        when count(*) filter (where judge = '{{ judge.judge }}') = 0 then 'not_read'
                        else string_agg(distinct null_reason, ',' order by null_reason) filter (
                            where judge = '{{ judge.judge }}' and metric in (
                                {%- for metric in judge.metrics if metric.headline is defined -%}
                                    '{{ metric.name }}'{{ ", " if not loop.last }}
                                {%- endfor -%}
                            )
                        )
                    end{{ "," if not loop.last }}
                {%- endfor %}
            ),
            ''
        ) as null_reasons,
        string_agg(distinct judge, ',' order by judge) filter (where is_flagged) as flagged_judges

    from flagged
    group by study_id, review_key

)

select * from final
