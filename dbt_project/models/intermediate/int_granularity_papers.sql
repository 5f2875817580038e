-- One row per (study, integer configuration, forced-decimal configuration of the same model, paper):
-- each protocol's valid scores summarized per paper, beside the paper's mean human score H_i.
-- Only papers with at least one valid score under both protocols enter.
with

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

paper_context as (

    select * from {{ ref('int_paper_context') }}

),

per_paper as (

    select
        study_id,
        reviewer_config,
        prompt_template,
        provider,
        model,
        paper_id,
        count(*) as n_reviews,
        count(*) filter (where is_parsed) as n_scores,
        avg(overall_score) filter (where is_parsed) as score_mean,
        var_samp(overall_score) filter (where is_parsed) as score_variance

    from review_scores
    where prompt_template in ('reviewer_scoring', 'reviewer_scoring_decimal')
    group by all

),

integer_scores as (

    select * from per_paper
    where prompt_template = 'reviewer_scoring'

),

decimal_scores as (

    select * from per_paper
    where prompt_template = 'reviewer_scoring_decimal'

),

paired as (

    select
        integer_scores.study_id,
        integer_scores.reviewer_config as integer_config,
        decimal_scores.reviewer_config as decimal_config,
        integer_scores.provider,
        integer_scores.model,
        integer_scores.paper_id,
        integer_scores.n_scores as n_integer_scores,
        decimal_scores.n_scores as n_decimal_scores,
        decimal_scores.n_reviews - decimal_scores.n_scores as n_decimal_invalid,
        integer_scores.score_mean as integer_mean,
        decimal_scores.score_mean as decimal_mean,
        integer_scores.score_variance as integer_variance,
        decimal_scores.score_variance as decimal_variance

    from integer_scores
    inner join decimal_scores
        on
            integer_scores.study_id = decimal_scores.study_id
            and integer_scores.provider = decimal_scores.provider
            and integer_scores.model = decimal_scores.model
            and integer_scores.paper_id = decimal_scores.paper_id

),

final as (

    select
        md5(concat_ws(
            '|', paired.study_id, paired.integer_config, paired.decimal_config, paired.paper_id
        )) as granularity_paper_id,
        paired.study_id || '|' || paired.integer_config || '|' || paired.decimal_config
            as granularity_pair_id,
        paired.*,
        paper_context.human_score_mean,
        paired.n_integer_scores > 0 and paired.n_decimal_scores > 0 as is_comparable

    from paired
    left join paper_context using (paper_id)

)

select * from final
