-- One row per (study, judge, judge configuration, subject): what each study's newest judgments run
-- (study_resolved with asset = 'judgments') asked its judges to judge. Subjects are review keys
-- (subject_kind 'review') and, for the flaws judge, pool keys pool:<paper_id>|<system>|s<sample> ('pool').
-- A study with a judge panel names each configuration's member (judge_label) and its primary one
-- (is_primary); without a panel both are null.
with

studies as (

    select * from {{ ref('int_studies_latest') }}

),

judges as (

    select
        study_id,
        study_resolved_id,
        unnest(  -- noqa: AL03
            from_json(
                judges,
                '[{"judge": "VARCHAR", "judge_config": "VARCHAR", "provider": "VARCHAR",
                   "model": "VARCHAR", "repeats": "INTEGER", "review_keys": ["VARCHAR"],
                   "pools": ["VARCHAR"], "label": "VARCHAR", "primary": "BOOLEAN"}]'
            ),
            recursive := true
        )

    from studies
    where resolved_by_asset = 'judgments'

),

reviews as (

    select
        study_id,
        study_resolved_id,
        judge,
        judge_config,
        provider,
        model,
        repeats,
        label,
        "primary",
        'review' as subject_kind,
        unnest(review_keys) as subject_key

    from judges

),

pools as (

    select
        study_id,
        study_resolved_id,
        judge,
        judge_config,
        provider,
        model,
        repeats,
        label,
        "primary",
        'pool' as subject_kind,
        unnest(pools) as subject_key

    from judges

),

final as (

    select * from reviews
    union all by name
    select * from pools

)

select
    concat_ws('|', study_id, judge_config, subject_key) as judging_scope_id,
    study_id,
    any_value(study_resolved_id) as study_resolved_id,
    judge,
    judge_config,
    any_value(provider) as judge_provider,
    any_value(model) as judge_model,
    -- a study asking for r repeats counts repeats 0..r-1 (another study's extra repeats are not its
    -- own); a configuration listed twice counts the larger set
    greatest(coalesce(max(repeats), 1), 1) as repeats,
    any_value(label) as judge_label,
    bool_or("primary") as is_primary,
    subject_kind,
    subject_key
from final
where subject_key is not null
group by study_id, judge, judge_config, subject_kind, subject_key
