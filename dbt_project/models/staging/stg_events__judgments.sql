-- One row per judgment_recorded event: what a judge extracted from one subject (units, or null with
-- a reason). Rename and cast only; the scores are computed from the units downstream.
with

source as (

    select * from {{ source('events', 'judgment_recorded') }}

),

renamed as (

    select
        cast(event_id as varchar) as judgment_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(schema_version as integer) as schema_version,
        cast(judgment_key as varchar) as judgment_key,
        cast(judge as varchar) as judge,
        cast(step as varchar) as step,
        cast(judge_config as varchar) as judge_config,
        cast(subject_key as varchar) as subject_key,
        cast(paper_id as varchar) as paper_id,
        cast(repeat as integer) as repeat_index,
        cast(status as varchar) as status,
        cast(null_reason as varchar) as null_reason,
        cast(units_json as json) as units,
        cast(dropped_json as json) as dropped,
        cast(llm_call_ids_json as json) as llm_call_ids,
        cast(request_keys_json as json) as request_keys,
        cast(inputs_json as json) as inputs,
        -- the study whose run recorded it: a label only, judgments are shared between studies
        cast(study as varchar) as recorded_for_study,
        status = 'ok' as is_ok

    from source

)

select * from renamed
