-- One row per (study, judge configuration, subject, repeat, score): the scores whose repeats a judge
-- card's test-retest ICC and α are computed from. A per-review judge's subject is the review, its score
-- the card_score in dbt_project.yml's quality_judges (doa, ns, mcs); the flaw judge's subject is a review
-- in one pool (pool_key|review_key: a review in two pools is two subjects), its scores PRISM's headline
-- recall_critical, recall_minor and ncps (int_quality_flaws_repeats, PRISM's quote rule). Null scores
-- left out.
-- depends_on: {{ ref('int_quality_declared_repeats') }}
with

unioned as (

    {% for judge in card_score_judges() %}
        select
            {%- for column in judged_review_columns() %}
                {{ column }},
            {%- endfor %}
            review_key as subject_key,
            repeat_index,
            '{{ judge.card_score }}' as metric,
            {{ judge.card_score }} as score_value
        from {{ judge_relation(judge, repeats=true) }}
        union all
    {% endfor %}

    {% for metric in ['recall_critical', 'recall_minor', 'ncps'] %}
        select
            {%- for column in judged_review_columns() %}
                {{ column }},
            {%- endfor %}
            concat_ws('|', pool_key, review_key) as subject_key,
            repeat_index,
            '{{ metric }}' as metric,
            {{ metric }} as score_value
        from {{ ref('int_quality_flaws_repeats') }}
        where null_reason is null
        {{ "union all" if not loop.last }}
    {% endfor %}

),

final as (

    select
        concat_ws('|', study_id, judge_config, subject_key, repeat_index, metric) as judge_card_score_id,
        *

    from unioned
    where repeat_index is not null and score_value is not null

)

select * from final
