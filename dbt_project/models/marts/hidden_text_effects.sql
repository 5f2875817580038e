-- One row per (study, reviewer configuration, injection method), plus method 'all': how hidden text
-- moved the reviews. self Δ = the configuration's own score on the injected version − on the clean one
-- (each the mean over its samples), judge Δ = the same on the score predicted from the review text;
-- mean and sample SD over the papers with both (SD null below 2 papers). Detection = the reviews of
-- the injected versions the injection judge found pointing out the hidden text. Every number that
-- cannot be computed is null with a reason.
with

pairs_by_method as (

    select * from {{ ref('int_hidden_text_pairs') }}

),

pairs as (

    -- each pair once under its method and once under 'all'
    select * from pairs_by_method
    union all
    select * replace ('all' as method) from pairs_by_method

),

grouped as (

    select
        study_id,
        reviewer_config,
        method,
        any_value(reviewer) as reviewer,
        bool_or(is_defence) as is_defence,
        count(*) as n_variants,
        count(self_delta) as n_self_pairs,
        avg(self_delta) as self_delta_mean,
        stddev_samp(self_delta) as self_delta_sd,
        sum(n_self_scored) as n_self_scored,
        any_value(judge_config) as judge_config,
        count(judge_delta) as n_judge_pairs,
        avg(judge_delta) as judge_delta_mean,
        stddev_samp(judge_delta) as judge_delta_sd,
        any_value(mention_judge_config) as mention_judge_config,
        sum(n_reviews_judged) as n_reviews_judged,
        sum(n_reviews_mentioning) as n_reviews_mentioning

    from pairs
    group by study_id, reviewer_config, method

),

final as (

    select
        concat_ws('|', study_id, reviewer_config, method) as hidden_text_effect_id,
        study_id,
        reviewer_config,
        reviewer,
        is_defence,
        method,
        n_variants,
        n_self_pairs,
        self_delta_mean,
        self_delta_sd,
        case
            when n_self_pairs > 0 then null
            when n_self_scored = 0 then 'no own score (the system gives none, or every review was null)'
            else 'no paper with an own score on both versions'
        end as self_null_reason,
        judge_config,
        n_judge_pairs,
        judge_delta_mean,
        judge_delta_sd,
        case
            when n_judge_pairs > 0 then null
            when judge_config is null then 'no [score_prediction] in the study'
            else 'no paper with a predicted score on both versions'
        end as judge_null_reason,
        mention_judge_config,
        cast(n_reviews_judged as integer) as n_reviews_judged,
        case when n_reviews_judged > 0 then cast(n_reviews_mentioning as integer) end as n_reviews_mentioning,
        case when n_reviews_judged > 0 then n_reviews_mentioning / n_reviews_judged end as mention_share,
        case when n_reviews_judged = 0 then 'no review judged by the injection judge' end as mention_null_reason

    from grouped

)

select * from final
