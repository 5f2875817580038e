-- Flaws per (study, judge configuration, pool, review): the per-repeat numbers of
-- int_quality_flaws_repeats averaged over the repeats that have them. A human review is in one pool
-- per system review (system under test and sample), so it has one row per pool.
with

repeats as (

    select * from {{ ref('int_quality_flaws_repeats') }}

),

final as (

    select
        concat_ws('|', study_id, judge_config, pool_key, review_key) as quality_flaws_id,
        study_id,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(system) as system,
        pool_key,
        any_value(pool_system) as pool_system,
        any_value(pool_sample) as pool_sample,
        review_key,
        {{ judge_identity() }},
        count(pool_judgment_id) as n_repeats,
        count(*) filter (where null_reason is null) as n_repeats_scored,
        avg(n_critical_flaws) as n_critical_flaws,
        avg(n_minor_flaws) as n_minor_flaws,
        avg(n_invalid_flaws) as n_invalid_flaws,
        avg(n_flaws_raised) as n_flaws_raised,
        avg(n_critical_found) as n_critical_found,
        avg(n_minor_found) as n_minor_found,
        avg(n_invalid_raised) as n_invalid_raised,
        avg(n_mentions) as n_mentions,
        avg(n_pool_members) as n_pool_members,
        avg(n_flaws_over_cap) as n_flaws_over_cap,
        avg(n_raisers_over_cap) as n_raisers_over_cap,
        avg(recall_critical) as recall_critical,
        avg(recall_minor) as recall_minor,
        avg(recall_critical_weighted) as recall_critical_weighted,
        avg(recall_minor_weighted) as recall_minor_weighted,
        avg(hallucination_rate) as hallucination_rate,
        avg(cps) as cps,
        avg(icps) as icps,
        avg(ncps) as ncps,
        stddev_samp(ncps) as ncps_sd,
        avg(cps_whole_review) as cps_whole_review,
        avg(icps_whole_review) as icps_whole_review,
        avg(ncps_whole_review) as ncps_whole_review,
        avg(ncps_null_when_none) as ncps_null_when_none,
        avg(n_raises_unplaced) as n_raises_unplaced,
        avg(n_pool_raises_unplaced) as n_pool_raises_unplaced,
        -- the verbatim variant: only raises whose quote is verbatim (see int_quality_flaws_repeats)
        avg(n_critical_flaws_verbatim) as n_critical_flaws_verbatim,
        avg(n_minor_flaws_verbatim) as n_minor_flaws_verbatim,
        avg(n_flaws_raised_verbatim) as n_flaws_raised_verbatim,
        avg(recall_critical_verbatim) as recall_critical_verbatim,
        avg(recall_minor_verbatim) as recall_minor_verbatim,
        avg(recall_critical_weighted_verbatim) as recall_critical_weighted_verbatim,
        avg(recall_minor_weighted_verbatim) as recall_minor_weighted_verbatim,
        avg(hallucination_rate_verbatim) as hallucination_rate_verbatim,
        avg(n_mentions_verbatim) as n_mentions_verbatim,
        avg(ncps_verbatim) as ncps_verbatim,
        count(*) filter (where null_reason is null) = 0 as is_null,
        case
            when count(*) filter (where null_reason is null) = 0 then
                arg_min(null_reason, coalesce(repeat_index, -1)) filter (where null_reason is not null)
        end as null_reason,
        case
            when avg(ncps) is null then
                arg_min(ncps_null_reason, coalesce(repeat_index, -1)) filter (where ncps_null_reason is not null)
        end as ncps_null_reason,
        -- per repeat: the pool judgment, then the order judgment of this review
        coalesce(
            flatten(
                list(
                    case
                        when order_judgment_id is null then [pool_judgment_id]
                        else [pool_judgment_id, order_judgment_id]
                    end
                    order by repeat_index
                ) filter (where pool_judgment_id is not null)
            ),
            []
        ) as judgment_ids

    from repeats
    group by study_id, judge_config, pool_key, review_key

)

select * from final
