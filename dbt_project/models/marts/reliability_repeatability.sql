-- Per study and reviewer configuration: how much its scores for one paper vary across independent samples.
-- Only parsed scores count; only papers with at least two scores enter variance and agreement.
with

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

drift as (

    select * from {{ ref('int_repeatability_drift') }}

),

variance as (

    -- V̂, its root and the certified pair count M: one implementation, in metrics.stats
    select * from {{ ref('int_repeatability_variance') }}

),

configs as (

    select
        study_id,
        reviewer_config,
        any_value(provider) as provider,
        any_value(model) as model,
        any_value(prompt_template) as prompt_template,
        any_value(prompt_hash) as prompt_hash,
        count(*) as n_reviews,
        count(*) filter (where is_parsed) as n_parsed_reviews,
        -- Where the mass of the scale sits: a reviewer that answers 5–7 for everything cannot rank.
        avg(cast(overall_score between 5 and 7 as double)) filter (where is_parsed)
            as share_scores_5_to_7,
        avg(cast(overall_score between 5 and 6 as double)) filter (where is_parsed)
            as share_scores_5_to_6

    from review_scores
    group by study_id, reviewer_config

),

parsed_scores as (

    select * from review_scores
    where is_parsed

),

per_paper as (

    select
        study_id,
        reviewer_config,
        paper_id,
        count(*) as n_scores,
        var_samp(overall_score) as score_variance,
        max(overall_score) - min(overall_score) as score_range

    from parsed_scores
    group by study_id, reviewer_config, paper_id

),

per_score_value as (

    select
        study_id,
        reviewer_config,
        paper_id,
        count(*) as n_same_score

    from parsed_scores
    group by study_id, reviewer_config, paper_id, overall_score

),

agreeing_pairs as (

    select
        study_id,
        reviewer_config,
        paper_id,
        sum(n_same_score * (n_same_score - 1) // 2) as n_agreeing_pairs

    from per_score_value
    group by study_id, reviewer_config, paper_id

),

papers as (

    select
        per_paper.*,
        per_paper.n_scores >= 2 as is_repeated,
        case
            when per_paper.n_scores >= 2 then
                agreeing_pairs.n_agreeing_pairs
                / (per_paper.n_scores * (per_paper.n_scores - 1) // 2)
        end as pairwise_agreement

    from per_paper
    inner join agreeing_pairs using (study_id, reviewer_config, paper_id)

),

per_config as (

    select
        study_id,
        reviewer_config,
        count(*) as n_papers,
        avg(n_scores) as reviews_per_paper_mean,
        min(n_scores) as reviews_per_paper_min,
        count(*) filter (where is_repeated) as n_papers_repeated,
        quantile_cont(score_variance, 0.1) filter (where is_repeated) as paper_variance_p10,
        quantile_cont(score_variance, 0.25) filter (where is_repeated) as paper_variance_p25,
        quantile_cont(score_variance, 0.5) filter (where is_repeated) as paper_variance_p50,
        quantile_cont(score_variance, 0.75) filter (where is_repeated) as paper_variance_p75,
        quantile_cont(score_variance, 0.9) filter (where is_repeated) as paper_variance_p90,
        avg(cast(score_range = 0 as double)) filter (where is_repeated)
            as share_papers_identical,
        avg(cast(score_range <= 1 as double)) filter (where is_repeated)
            as share_papers_range_le_1,
        avg(pairwise_agreement) filter (where is_repeated) as pairwise_agreement_mean

    from papers
    group by study_id, reviewer_config

),

final as (

    select
        configs.study_id || '|' || configs.reviewer_config as repeatability_id,
        configs.study_id,
        configs.reviewer_config,
        configs.provider,
        configs.model,
        configs.prompt_template,
        configs.prompt_hash,
        configs.n_reviews,
        configs.n_parsed_reviews,
        configs.n_parsed_reviews / configs.n_reviews as parse_success_rate,
        coalesce(per_config.n_papers, 0) as n_papers,
        per_config.reviews_per_paper_mean,
        per_config.reviews_per_paper_min,
        coalesce(per_config.n_papers_repeated, 0) as n_papers_repeated,
        variance.variance_hat,
        variance.within_paper_sd,
        -- M for the certified budget: N·⌊n_min/2⌋ disjoint pairs (valid with unequal n_i)
        coalesce(variance.n_certified_pairs, 0) as n_certified_pairs,
        per_config.share_papers_identical,
        per_config.share_papers_range_le_1,
        per_config.pairwise_agreement_mean,
        configs.share_scores_5_to_7,
        configs.share_scores_5_to_6,
        per_config.paper_variance_p10,
        per_config.paper_variance_p25,
        per_config.paper_variance_p50,
        per_config.paper_variance_p75,
        per_config.paper_variance_p90,
        drift.n_papers_drift,
        drift.drift_mean_early,
        drift.drift_mean_late,
        drift.drift_shift,
        drift.drift_ci_low,
        drift.drift_ci_high

    from configs
    left join per_config using (study_id, reviewer_config)
    left join drift using (study_id, reviewer_config)
    left join variance using (study_id, reviewer_config)

)

select * from final
