-- One row per (study, reviewer configuration, paper): the paper's mean parsed AI score beside its human
-- score and outcome, the input of reliability_validity.
with

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

paper_context as (

    select * from {{ ref('int_paper_context') }}

),

-- a review's length (the trivial length baseline of reliability_validity): the characters of a peerlake
-- reviewer's answer; null for imported and system reviews, whose texts are in the blob store
review_lengths as (

    select
        llm_call_id,
        length(response_text) as review_chars

    from {{ ref('stg_events__llm_calls') }}
    where purpose = 'review'

),

ai_means as (

    select
        review_scores.study_id,
        review_scores.reviewer_config,
        review_scores.paper_id,
        count(*) as n_scores,
        avg(review_scores.overall_score) as ai_score_mean,
        avg(review_lengths.review_chars) as review_chars_mean

    from review_scores
    left join review_lengths on review_scores.llm_call_id = review_lengths.llm_call_id
    where review_scores.is_parsed
    group by review_scores.study_id, review_scores.reviewer_config, review_scores.paper_id

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
        ai_means.review_chars_mean,
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
