-- One row per (study, judge configuration, review, repeat, score): the review-level scores whose
-- repeats a judge card's test-retest ICC and α are computed from (each judge's card_score in
-- dbt_project.yml's quality_judges: doa, ns, mcs; null scores left out).
-- depends_on: {{ ref('int_quality_declared_repeats') }}
with

unioned as (

    {% for judge in card_score_judges() %}
        select
            {%- for column in judged_review_columns() %}
                {{ column }},
            {%- endfor %}
            repeat_index,
            '{{ judge.card_score }}' as metric,
            {{ judge.card_score }} as score_value
        from {{ judge_relation(judge, repeats=true) }}
        {{ "union all" if not loop.last }}
    {% endfor %}

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key, repeat_index, metric) as judge_card_score_id,
        *

    from unioned
    where repeat_index is not null and score_value is not null

)

select * from final
