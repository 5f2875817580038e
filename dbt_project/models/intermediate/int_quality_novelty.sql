-- Novelty per (study, judge configuration, review): the per-repeat scores of int_quality_novelty_repeats
-- averaged over the repeats that have one, with the SD of NS across them.
with

repeats as (

    select * from {{ ref('int_quality_novelty_repeats') }}

),

final as (

    select
        {{ judged_review_head('quality_novelty_id', 'ns') }},
        avg(n_claims) as n_claims,
        avg(n_claims_scored) as n_claims_scored,
        avg(claim_score_mean) as claim_score_mean,
        avg(ns) as ns,
        stddev_samp(ns) as ns_sd,
        avg(sr) as sr,
        avg(ssr) as ssr,
        {{ judged_review_null('ns') }},
        -- the claims judgments the scores come from, then the paper extractions their queries came from
        list_concat(
            coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), []),
            coalesce(list(paper_judgment_id order by repeat_index) filter (where paper_judgment_id is not null), [])
        ) as judgment_ids

    from repeats
    group by study_id, judge_config, review_key

)

select * from final
