-- Novelty per (study, judge configuration, review, repeat), from the claim scores s_c of
-- int_quality_novelty_claims: NS = clip((mean s_c + 2) / 4, 0, 1), SR = share of claims with s_c >= 1,
-- SSR = share with s_c >= 2, all over the claims whose s_c is not null. No claims -> null (no_claims);
-- claims but none scored -> null (no_scored_claims).
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'novelty'

),

claims as (

    select * from {{ ref('int_quality_novelty_claims') }}

),

paper_judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'novelty' and step = 'paper'

),

per_repeat as (

    select
        judged_review_id,
        count(*) as n_claims,
        count(claim_score) as n_claims_scored,
        avg(claim_score) as claim_score_mean,
        -- s_c is a weighted mean of scores in [-2, 2], so (mean + 2) / 4 is in [0, 1] unless a relevance
        -- was negative; the clip keeps NS a share then too
        -- (greatest and least skip nulls, so the null case is spelled out)
        case
            when avg(claim_score) is not null then greatest(0, least(1, (avg(claim_score) + 2) / 4))
        end as ns,
        -- rounded: a weighted mean that is 1 in exact arithmetic may land a rounding step below it
        avg(cast(round(claim_score, 9) >= 1 as double)) as sr,
        avg(cast(round(claim_score, 9) >= 2 as double)) as ssr

    from claims
    group by judged_review_id

),

final as (

    select
        judged.* exclude (units, inputs, null_reason),  -- noqa: RF02
        per_repeat.* exclude (judged_review_id),
        -- the paper extraction the retrieval queries came from (lineage only)
        paper_judgments.judgment_id as paper_judgment_id,
        case
            when judged.null_reason is not null then judged.null_reason
            when per_repeat.n_claims is null then 'no_claims'
            when per_repeat.n_claims_scored = 0 then 'no_scored_claims'
        end as null_reason

    from judged
    left join per_repeat using (judged_review_id)
    left join paper_judgments
        on
            judged.judge_config = paper_judgments.judge_config
            and judged.repeat_index = paper_judgments.repeat_index
            and paper_judgments.subject_key = 'paper:' || judged.paper_id

)

select * from final
