-- Constructiveness per (study, judge configuration, review): the per-repeat scores of
-- int_quality_constructiveness_repeats averaged over the repeats that have one, with the SD of MCS.
with

repeats as (

    select * from {{ ref('int_quality_constructiveness_repeats') }}

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key) as quality_constructiveness_id,
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
        count(mcs) as n_repeats_scored,
        avg(n_comments) as n_comments,
        avg(mcs) as mcs,
        stddev_samp(mcs) as mcs_sd,
        avg(share_actionable) as share_actionable,
        avg(share_solution) as share_solution,
        avg(share_clc_06) as share_clc_06,
        avg(share_anchor_found) as share_anchor_found,
        avg(mcs) is null as is_null,
        case
            when avg(mcs) is null then
                arg_min(null_reason, coalesce(repeat_index, -1)) filter (where null_reason is not null)
        end as null_reason,
        coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), [])
            as judgment_ids

    from repeats
    group by study_id, judge_config, review_key

)

select * from final
