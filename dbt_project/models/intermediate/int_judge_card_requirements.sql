-- One row per (study, judge configuration, requirement) a study declares in [judging.require]: the
-- threshold its judge card must meet and what a failing judge's rows get (on_fail: block | flag), as
-- the study's newest judgments resolution recorded them with each judge (studies/parse.py).
with

judges as (

    select
        study_id,
        unnest(  -- noqa: AL03
            from_json(judges, '[{"judge": "VARCHAR", "judge_config": "VARCHAR", "require": "JSON"}]'),
            recursive := true
        )

    from {{ ref('int_studies_latest') }}
    where resolved_by_asset = 'judgments'

),

declared as (

    select
        study_id,
        judge,
        judge_config,
        coalesce(require ->> 'on_fail', 'block') as on_fail,
        unnest(['kappa_min', 'retest_alpha_min', 'position_shift_max']) as requirement,
        require

    from judges
    where require is not null

),

final as (

    select
        concat_ws('|', study_id, judge_config, requirement) as judge_card_requirement_id,
        study_id,
        judge,
        judge_config,
        requirement,
        cast(json_extract_string(require, '$.' || requirement) as double) as threshold,
        on_fail

    from declared
    where json_extract_string(require, '$.' || requirement) is not null

)

select * from final
