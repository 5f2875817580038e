-- One row per (study, reviewer system configuration): how many reviews it wrote and how many came
-- back null (and the commonest reason), what a review cost to make (calls, tokens, USD, model and
-- wall time), its scores where it gives any, and the literature's cost per paper beside peerlake's.
with

review_costs as (

    select * from {{ ref('system_review_costs') }}

),

variance as (

    select * from {{ ref('int_repeatability_variance') }}

),

references_cost as (

    -- The literature's cost of one review of one paper on hosted models, from
    -- ../shared/specs/seed-002-systems.md section (h).3 (the seed's T9; no price table given), without
    -- MLR's optional literature agent. mlr-combined is derived from (h).1 ("about 1/3 of the full
    -- pipeline"); AgentReview reports none.
    select
        refs.system_name,
        cast(refs.reference_cost_per_review_usd as double) as reference_cost_per_review_usd,
        refs.reference_source
    from (
        values
        ('mlr', 0.47, 'seed-002 (h).3, T9: $0.42 input + $0.05 output'),
        ('ai-scientist', 0.49, 'seed-002 (h).3, T9: $0.44 input + $0.05 output'),
        ('llm-review', 0.01, 'seed-002 (h).3: on the order of $0.01'),
        ('mlr-combined', 0.16, 'derived: about 1/3 of MLR (seed-002 (h).1)')
    ) as refs (system_name, reference_cost_per_review_usd, reference_source)

),

null_reasons as (

    select
        study_id,
        system_config,
        null_reason,
        count(*) as n_reviews

    from review_costs
    where status = 'null'
    group by study_id, system_config, null_reason
    qualify row_number() over (
        partition by study_id, system_config order by count(*) desc, null_reason
    ) = 1

),

per_paper as (

    -- all of a paper's samples: what the study spent on the paper with this system
    select
        study_id,
        system_config,
        paper_id,
        case when bool_and(is_cost_complete) then sum(cost_usd) end as paper_cost_usd

    from review_costs
    group by all

),

per_config as (

    select
        study_id,
        system_config,
        any_value(system_name) as system_name,
        any_value(provider) as provider,
        any_value(model) as model,
        count(distinct paper_id) as n_papers,
        count(*) as n_reviews,
        count(*) filter (where status = 'ok') as n_ok_reviews,
        count(*) filter (where status = 'null') as n_null_reviews,
        avg(n_calls) as calls_per_review_mean,
        avg(n_error_attempts) as error_attempts_per_review_mean,
        avg(input_tokens) as input_tokens_per_review_mean,
        avg(output_tokens) as output_tokens_per_review_mean,
        count(*) filter (where not is_cost_complete) as n_reviews_cost_unknown,
        -- a review of unknown cost makes every cost of the configuration unknown, never smaller
        case when bool_and(is_cost_complete) then sum(cost_usd) end as cost_total_usd,
        case when bool_and(is_cost_complete) then avg(cost_usd) end as cost_per_review_mean_usd,
        avg(model_seconds) as model_seconds_per_review_mean,
        avg(wall_seconds) as wall_seconds_per_review_mean,
        cast(sum(n_calls_made_by_study) as bigint) as n_calls_made_by_study,
        cast(sum(n_calls) as bigint) as n_calls,
        bool_or(is_scored) as is_scored,
        count(overall_score) as n_scored_reviews,
        avg(overall_score) as score_mean,
        stddev_samp(overall_score) as score_sd

    from review_costs
    group by study_id, system_config

),

paper_costs as (

    select
        study_id,
        system_config,
        case when count(paper_cost_usd) = count(*) then avg(paper_cost_usd) end as cost_per_paper_mean_usd

    from per_paper
    group by all

),

final as (

    select
        per_config.study_id || '|' || per_config.system_config as system_summary_id,
        per_config.study_id,
        per_config.system_name,
        per_config.system_config,
        per_config.provider,
        per_config.model,
        per_config.n_papers,
        per_config.n_reviews,
        per_config.n_ok_reviews,
        per_config.n_null_reviews,
        null_reasons.null_reason as top_null_reason,
        coalesce(null_reasons.n_reviews, 0) as n_top_null_reason,
        per_config.calls_per_review_mean,
        per_config.error_attempts_per_review_mean,
        per_config.input_tokens_per_review_mean,
        per_config.output_tokens_per_review_mean,
        per_config.n_calls,
        per_config.n_calls_made_by_study,
        per_config.n_reviews_cost_unknown,
        per_config.n_reviews_cost_unknown = 0 as is_cost_complete,
        per_config.cost_total_usd,
        per_config.cost_per_review_mean_usd,
        paper_costs.cost_per_paper_mean_usd,
        per_config.model_seconds_per_review_mean,
        per_config.wall_seconds_per_review_mean,
        per_config.is_scored,
        per_config.n_scored_reviews,
        per_config.score_mean,
        per_config.score_sd,
        -- sqrt of the mean within-paper variance (metrics.stats), for a system that gives scores
        case when per_config.is_scored then variance.within_paper_sd end as within_paper_sd,
        references_cost.reference_cost_per_review_usd,
        references_cost.reference_source

    from per_config
    left join null_reasons using (study_id, system_config)
    left join paper_costs using (study_id, system_config)
    left join variance
        on
            per_config.study_id = variance.study_id
            and per_config.system_config = variance.reviewer_config
    left join references_cost using (system_name)

)

select * from final
