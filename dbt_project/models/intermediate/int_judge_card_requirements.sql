-- One row per (study, judge configuration, requirement) a study declares in [judging.require]: the
-- threshold its judge card must meet and what a failing judge's rows get (on_fail: block | flag), as
-- the study's newest judgments resolution recorded them with each judge (studies/parse.py). A judge with
-- a [judging.require.<judge>] table has its whole requirement there (the common keys with its own over
-- them: [[key, value], ...] under the judge's name); the others have the common keys.
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

resolved as (

    select
        study_id,
        judge,
        judge_config,
        require,
        from_json(json_extract(require, '$."' || judge || '"'), '[["VARCHAR"]]') as own

    from judges
    where require is not null

),

declared as (

    select
        study_id,
        judge,
        judge_config,
        own,
        require,
        unnest(['kappa_min', 'retest_alpha_min', 'position_shift_max']) as requirement

    from resolved

),

valued as (

    select
        study_id,
        judge,
        judge_config,
        requirement,
        own is not null as is_judge_own,
        case
            when own is not null then list_filter(own, lambda pair: pair[1] = requirement)[1][2]
            else json_extract_string(require, '$.' || requirement)
        end as threshold_text,
        coalesce(
            case
                when own is not null then list_filter(own, lambda pair: pair[1] = 'on_fail')[1][2]
                else require ->> 'on_fail'
            end,
            'block'
        ) as on_fail

    from declared

),

final as (

    select
        concat_ws('|', study_id, judge_config, requirement) as judge_card_requirement_id,
        study_id,
        judge,
        judge_config,
        requirement,
        cast(threshold_text as double) as threshold,
        on_fail,
        -- the threshold is the judge's own ([judging.require.<judge>]), not the study's common one
        is_judge_own

    from valued
    where threshold_text is not null

)

select * from final
