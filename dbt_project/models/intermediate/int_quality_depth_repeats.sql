-- Depth of analysis per (study, judge configuration, review, repeat), from the units of the depth
-- judge (step units). R = premises / units; S = mean non-null grounding of the premises / 2, 0 when no
-- premise has one (PRISM's else-0); DoA = 2RS / (R + S), 0 when R + S = 0. A judgment without units
-- is null with its reason, never 0.
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
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
        avg(grounding) filter (where role = 'premise') as grounding_mean,
        avg(cast(aspect = 'soundness' as double)) as share_units_soundness,
        avg(cast(aspect = 'clarity' as double)) as share_units_clarity,
        avg(cast(aspect = 'contribution' as double)) as share_units_contribution,
        avg(cast(aspect = 'other' as double)) as share_units_other,
        avg(cast(aspect = 'soundness' as double)) filter (where role = 'premise')
            as share_premises_soundness,
        avg(cast(aspect = 'clarity' as double)) filter (where role = 'premise')
            as share_premises_clarity,
        avg(cast(aspect = 'contribution' as double)) filter (where role = 'premise')
            as share_premises_contribution,
        avg(cast(aspect = 'other' as double)) filter (where role = 'premise')
            as share_premises_other

    from units
    group by judged_review_id

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

)

select * from final
