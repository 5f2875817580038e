-- Depth of analysis per (study, judge configuration, review): the per-repeat scores of
-- int_quality_depth_repeats averaged over the repeats that have one, with the SD of DoA across them.
-- The aspect shares are in quality_depth_aspects (long form: a taxonomy's labels are not columns).
with

repeats as (

    select * from {{ ref('int_quality_depth_repeats') }}

),

final as (

    select
        {{ judged_review_head('quality_depth_id', 'doa') }},
        avg(n_units) as n_units,
        avg(n_claims) as n_claims,
        avg(n_premises) as n_premises,
        avg(n_premises_grounded) as n_premises_grounded,
        avg(premise_ratio) as premise_ratio,
        avg(grounding_norm) as grounding_norm,
        avg(doa) as doa,
        stddev_samp(doa) as doa_sd,
        -- one taxonomy and one cap per judge configuration (both are part of its identity)
        any_value(depth_taxonomy) as depth_taxonomy,
        any_value(units_cap) as units_cap,
        avg(n_units_cut_by_cap) filter (where doa is not null) as n_units_cut_by_cap,
        bool_or(is_cap_reached) filter (where doa is not null) as is_cap_reached,
        {{ judged_review_null('doa') }},
        coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), [])
            as judgment_ids

    from repeats
    group by study_id, judge_config, review_key

)

select * from final
