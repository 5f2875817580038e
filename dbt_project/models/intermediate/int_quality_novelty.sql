-- Novelty per (study, judge configuration, review): the per-repeat scores of int_quality_novelty_repeats
-- averaged over the repeats that have one, with the SD of NS across them.
with

repeats as (

    select * from {{ ref('int_quality_novelty_repeats') }}

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key) as quality_novelty_id,
        study_id,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(system) as system,
        review_key,
        any_value(judge) as judge,
        judge_config,
        any_value(judge_provider) as judge_provider,
        any_value(judge_model) as judge_model,
        any_value(fields_used) as fields_used,
        count(judgment_id) as n_repeats,
        count(ns) as n_repeats_scored,
        avg(n_claims) as n_claims,
        avg(n_claims_scored) as n_claims_scored,
        avg(claim_score_mean) as claim_score_mean,
        avg(ns) as ns,
        stddev_samp(ns) as ns_sd,
        avg(sr) as sr,
        avg(ssr) as ssr,
        avg(ns) is null as is_null,
        case
            when avg(ns) is null then
                arg_min(null_reason, coalesce(repeat_index, -1)) filter (where null_reason is not null)
        end as null_reason,
        -- the claims judgments the scores come from, then the paper extractions their queries came from
        list_concat(
            coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), []),
            coalesce(list(paper_judgment_id order by repeat_index) filter (where paper_judgment_id is not null), [])
        ) as judgment_ids

    from repeats
    group by study_id, judge_config, review_key

)

select * from final
