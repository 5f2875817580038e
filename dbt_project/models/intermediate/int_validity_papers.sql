-- One row per (study, reviewer configuration, paper): the paper's mean parsed AI score beside its human
-- score and outcome, the input of reliability_validity.
with

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

paper_context as (

    select * from {{ ref('int_paper_context') }}

),

ai_means as (

    select
        study_id,
        reviewer_config,
        paper_id,
        count(*) as n_scores,
        avg(overall_score) as ai_score_mean

    from review_scores
    where is_parsed
    group by study_id, reviewer_config, paper_id

),

final as (

    select
        md5(concat_ws('|', ai_means.study_id, ai_means.reviewer_config, ai_means.paper_id))
            as validity_paper_id,
        ai_means.study_id,
        ai_means.reviewer_config,
        ai_means.paper_id,
        ai_means.n_scores,
        ai_means.ai_score_mean,
        paper_context.human_score_mean,
        paper_context.venue,
        paper_context.year,
        paper_context.venue_year,
        paper_context.status,
        paper_context.is_accepted,
        paper_context.is_withdrawn

    from ai_means
    -- An AI score for a paper that was never ingested still counts where no human data is needed.
    left join paper_context using (paper_id)

)

select * from final
