-- One row per novelty claim per (study, judge configuration, review, repeat): its score s_c, the
-- relevance-weighted mean of the verdict scores (SUPPORTED 2, OVERSTATED 1, AMBIGUOUS 0, UNDERSTATED -1,
-- UNSUPPORTED -2) over its 3 most relevant candidates with a verdict: s_c = sum(r_j s_j) / sum(r_j).
-- Null with a reason when the claim had no candidate, no verdict, or no relevance to weigh by.
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'novelty' and null_reason is null

),

candidate_rows as (

    select
        judged_review_id,
        unnest(  -- noqa: AL03
            from_json(
                units,
                '[{"claim_index": "INTEGER", "claim_text": "VARCHAR", "stance": "VARCHAR",
                   "candidate_id": "VARCHAR", "candidate_title": "VARCHAR", "candidate_year": "INTEGER",
                   "pool_rank": "INTEGER", "relevance": "DOUBLE", "verdict": "VARCHAR", "reason": "VARCHAR"}]'
            ),
            recursive := true
        )

    from judged

),

verdicts as (

    select
        *,
        case verdict
            when 'SUPPORTED' then 2
            when 'OVERSTATED' then 1
            when 'AMBIGUOUS' then 0
            when 'UNDERSTATED' then -1
            when 'UNSUPPORTED' then -2
        end as verdict_score

    from candidate_rows

),

top_candidates as (

    select
        *,
        row_number() over (
            partition by judged_review_id, claim_index
            order by relevance desc nulls last, pool_rank asc nulls last, candidate_id asc
        ) as relevance_rank

    from verdicts
    where verdict_score is not null
    qualify relevance_rank <= 3

),

weighted as (

    select
        judged_review_id,
        claim_index,
        count(*) as n_top_candidates,
        sum(relevance * verdict_score) as weighted_verdict_sum,
        sum(relevance) as relevance_sum,
        list(candidate_id order by relevance_rank) as top_candidate_ids

    from top_candidates
    group by judged_review_id, claim_index

),

claims as (

    select
        judged_review_id,
        claim_index,
        any_value(claim_text) as claim_text,
        any_value(stance) as stance,
        count(candidate_id) as n_candidates,
        count(verdict_score) as n_verdicts,
        bool_or(reason = 'no_candidates') as has_empty_pool

    from verdicts
    group by judged_review_id, claim_index

),

final as (

    select
        concat_ws('|', judged.judged_review_id, claims.claim_index) as novelty_claim_id,
        judged.judged_review_id,
        judged.study_id,
        judged.judge_config,
        judged.review_key,
        judged.paper_id,
        judged.repeat_index,
        judged.judgment_id,
        claims.claim_index,
        claims.claim_text,
        claims.stance,
        claims.n_candidates,
        claims.n_verdicts,
        coalesce(weighted.n_top_candidates, 0) as n_top_candidates,
        weighted.relevance_sum,
        weighted.top_candidate_ids,
        case
            when weighted.relevance_sum != 0 then weighted.weighted_verdict_sum / weighted.relevance_sum
        end as claim_score,
        case
            when claims.n_candidates = 0 and claims.has_empty_pool then 'no_candidates'
            when claims.n_verdicts = 0 then 'no_verdicts'
            when coalesce(weighted.relevance_sum, 0) = 0 then 'zero_relevance'
        end as claim_score_null_reason

    from claims
    inner join judged using (judged_review_id)
    left join weighted using (judged_review_id, claim_index)

)

select * from final
