-- One row per (study, bias-probe variant judgment): the variant (judging/probes.py records it under the
-- subject probe:<probe>:<original subject>, inputs_json.probe naming the probe, original and seed) beside the
-- newest judgment of its original subject under the same judge, step, configuration and repeat. A study
-- owns the pair when its judging scope lists the original (for a flaws order step: the pool it belongs
-- to) under that configuration; is_pair_ok when both judgments are ok, so a shift can be measured.
with

judgments as (

    select * from {{ ref('int_judgments_latest') }}

),

scopes as (

    select * from {{ ref('int_judging_scopes') }}

),

variants as (

    select
        *,
        inputs -> 'probe' ->> 'name' as probe,
        inputs -> 'probe' ->> 'original_subject' as original_subject_key,
        cast(inputs -> 'probe' ->> 'seed' as integer) as probe_seed

    from judgments
    where starts_with(subject_key, 'probe:') and (inputs -> 'probe') is not null

),

scoped as (

    select
        variants.*,
        -- the flaws order step's subject is <pool key>|<review key>; its scope is the pool
        case
            when variants.judge = 'flaws' and variants.step = 'order'
                then regexp_extract(variants.original_subject_key, '^(pool:[^|]*\|[^|]*\|s[0-9-]+)\|', 1)
            else variants.original_subject_key
        end as scope_subject_key

    from variants

),

final as (

    select
        concat_ws('|', scopes.study_id, scoped.judgment_id) as judge_probe_pair_id,
        scopes.study_id,
        scoped.judge,
        scoped.step,
        scoped.judge_config,
        scopes.judge_model,
        scoped.probe,
        scoped.probe_seed,
        scoped.original_subject_key,
        scoped.subject_key as variant_subject_key,
        scoped.repeat_index,
        scoped.paper_id,
        originals.judgment_id as original_judgment_id,
        scoped.judgment_id as variant_judgment_id,
        originals.status as original_status,
        scoped.status as variant_status,
        cast(originals.units as varchar) as original_units,
        cast(scoped.units as varchar) as variant_units,
        cast(originals.inputs as varchar) as original_inputs,
        cast(scoped.inputs as varchar) as variant_inputs,
        coalesce(originals.is_ok and scoped.is_ok, false) as is_pair_ok

    from scoped
    inner join scopes
        on
            scoped.judge = scopes.judge
            and scoped.judge_config = scopes.judge_config
            and scoped.scope_subject_key = scopes.subject_key
            and scoped.repeat_index between 0 and scopes.repeats - 1
    left join judgments as originals
        on
            scoped.judge = originals.judge
            and scoped.step = originals.step
            and scoped.judge_config = originals.judge_config
            and scoped.original_subject_key = originals.subject_key
            and scoped.repeat_index = originals.repeat_index

)

select * from final
