-- Constructiveness per (study, judge configuration, review): the per-repeat scores of
-- int_quality_constructiveness_repeats averaged over the repeats that have one, with the SD of MCS.
with

repeats as (

    select * from {{ ref('int_quality_constructiveness_repeats') }}

),

final as (

    select
        {{ judged_review_head('quality_constructiveness_id', 'mcs') }},
        avg(n_comments) as n_comments,
        avg(mcs) as mcs,
        stddev_samp(mcs) as mcs_sd,
        avg(share_actionable) as share_actionable,
        avg(share_solution) as share_solution,
        avg(share_clc_06) as share_clc_06,
        avg(share_anchor_found) as share_anchor_found,
        {{ judged_review_null('mcs') }},
        coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), [])
            as judgment_ids

    from repeats
    group by study_id, judge_config, review_key

)

select * from final
