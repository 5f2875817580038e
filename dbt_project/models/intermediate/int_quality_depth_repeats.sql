-- Depth of analysis per (study, judge configuration, review, repeat), from the units of the depth
-- judge (step units). R = premises / units; S = mean non-null grounding of the premises / 2, 0 when no
-- premise has one (PRISM's else-0); DoA = 2RS / (R + S), 0 when R + S = 0. A judgment without units
-- is null with its reason, never 0. What the depth_units cap cut (dropped_json over_max_units) and
-- the taxonomy the aspects come from (inputs_json; the per-aspect shares are quality_depth_aspects).
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'depth'

),

dropped as (

    select
        judgment_id,
        dropped

    from {{ ref('int_judgments_latest') }}
    where judge = 'depth'

),

units as (

    select
        judged_review_id,
        unnest(  -- noqa: AL03
            from_json(
                units, '[{"unit_index": "INTEGER", "role": "VARCHAR", "aspect": "VARCHAR", "grounding": "INTEGER"}]'
            ),
            recursive := true
        )

    from judged
    where null_reason is null

),

per_repeat as (

    select
        judged_review_id,
        count(*) as n_units,
        count(*) filter (where role = 'claim') as n_claims,
        count(*) filter (where role = 'premise') as n_premises,
        -- a premise the grounder skipped counts in R but not in S
        count(grounding) filter (where role = 'premise') as n_premises_grounded,
        avg(grounding) filter (where role = 'premise') as grounding_mean

    from units
    group by judged_review_id

),

caps as (

    -- judgments of parser depth-1 (before the cap was a setting) record no max_units: their cap was 12
    select
        judged.judged_review_id,
        case
            when (judged.inputs -> 'max_units') is null then 12
            else try_cast(judged.inputs ->> 'max_units' as integer)
        end as units_cap,
        try_cast(judged.inputs ->> 'units_answered' as integer) as n_units_answered,
        coalesce(try_cast(dropped.dropped ->> 'over_max_units' as integer), 0) as n_units_cut_by_cap

    from judged
    left join dropped using (judgment_id)
    where judged.judgment_id is not null

),

ratios as (

    select
        *,
        n_premises / n_units as premise_ratio,
        coalesce(grounding_mean, 0) / 2 as grounding_norm

    from per_repeat

),

final as (

    select
        judged.* exclude (units, inputs, null_reason),  -- noqa: RF02
        ratios.* exclude (judged_review_id, grounding_mean),  -- noqa: RF02
        -- judgments of parser depth-1 recorded no taxonomy: they labelled with prism-reference's aspects
        case
            when judged.judgment_id is not null then coalesce(judged.inputs ->> 'depth_taxonomy', 'prism-reference')
        end as depth_taxonomy,
        caps.units_cap,
        caps.n_units_cut_by_cap,
        -- the answer filled the cap: a grammar-decoding model stops there, so more may have gone unsaid
        caps.n_units_answered >= caps.units_cap as is_cap_reached,
        case
            when ratios.premise_ratio + ratios.grounding_norm = 0 then 0.0
            else 2 * ratios.premise_ratio * ratios.grounding_norm / (ratios.premise_ratio + ratios.grounding_norm)
        end as doa,
        -- an ok judgment always has units; one without is as null as the judge's own no_units
        case
            when judged.null_reason is not null then judged.null_reason
            when ratios.n_units is null then 'no_units'
        end as null_reason

    from judged
    left join ratios using (judged_review_id)
    left join caps using (judged_review_id)

)

select * from final
