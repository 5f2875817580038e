-- Per (study, judge configuration, metric): how much a judge's own score for one review varies across
-- its repeats (each judge's card score: doa, ns, mcs), next to how much the scores vary between
-- reviews. Only reviews with at least two scored repeats enter the within-review SDs.
-- depends_on: {{ ref('int_quality_declared') }}
with

per_review as (

    -- each judge's card score (dbt_project.yml's quality_judges: doa, ns, mcs) and its SD across repeats,
    -- <score>_sd in the judge's per-review model
    {% for judge in card_score_judges() %}
        select
            {%- for column in judged_review_columns() if column != 'review_key' %}
                {{ column }},
            {%- endfor %}
            '{{ judge.card_score }}' as metric,
            n_repeats_scored,
            {{ judge.card_score }} as score,
            {{ judge.card_score }}_sd as within_review_sd
        from {{ judge_relation(judge) }}
        {{ "union all" if not loop.last }}
    {% endfor %}

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
