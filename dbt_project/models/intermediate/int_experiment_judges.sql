-- One row per (study, resolving asset, judge, judge configuration): the judges a study's newest
-- resolution by that asset recorded (study_resolved.judges_json): an experiment_<name> asset lists
-- the judge configuration it ran and its repeats. repeats is as recorded (the larger when one
-- configuration is listed twice); n_repeats reads a missing or zero count as 1.
with

studies as (

    select * from {{ ref('int_studies_latest') }}

),

listed as (

    select
        study_id,
        resolved_by_asset,
        study_resolved_id,
        -- recursive unnest spreads each {judge, judge_config, provider, model, repeats} into columns
        unnest(  -- noqa: AL03
            from_json(
                judges,
                '[{"judge": "VARCHAR", "judge_config": "VARCHAR", "provider": "VARCHAR",
                   "model": "VARCHAR", "repeats": "INTEGER"}]'
            ),
            recursive := true
        )

    from studies

),

final as (

    select
        concat_ws('|', study_id, resolved_by_asset, judge, judge_config) as experiment_judge_id,
        study_id,
        resolved_by_asset,
        any_value(study_resolved_id) as study_resolved_id,
        judge,
        judge_config,
        any_value(provider) as judge_provider,
        any_value(model) as judge_model,
        max(repeats) as repeats,
        -- the repeats 0..n_repeats-1 the study counts (another study's extra repeats are not its own)
        greatest(coalesce(max(repeats), 1), 1) as n_repeats

    from listed
    where judge is not null
    group by study_id, resolved_by_asset, judge, judge_config

)

select * from final
