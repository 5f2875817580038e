-- One row per llm_call event (every attempt), and per duplicate success the seal set aside.
-- Rename and cast only.
with

source as (

    select
        *,
        false as is_duplicate_success
    from {{ source('events', 'llm_call') }}
    union all by name
    -- paid-for second answers the seal set aside: costs count them, answers never do
    select
        *,
        true as is_duplicate_success
    from {{ source('events', 'llm_call_duplicated') }}

),

renamed as (

    select
        cast(event_id as varchar) as llm_call_id,
        cast(occurred_at as timestamptz) as occurred_at,
        cast(schema_version as integer) as schema_version,
        cast(request_key as varchar) as request_key,
        cast(purpose as varchar) as purpose,
        cast(subject_id as varchar) as subject_id,
        cast(sample_index as integer) as sample_index,
        cast(attempt as integer) as attempt,
        cast(status as varchar) as status,
        cast(error_type as varchar) as error_type,
        cast(error_message as varchar) as error_message,
        cast(provider as varchar) as provider,
        cast(model as varchar) as model,
        cast(prompt_template as varchar) as prompt_template,
        cast(prompt_hash as varchar) as prompt_hash,
        cast(reviewer_config as varchar) as reviewer_config,
        cast(params_json as varchar) as params_json,
        cast(request_sha256 as varchar) as request_sha256,
        cast(response_sha256 as varchar) as response_sha256,
        cast(response_text as varchar) as response_text,
        cast(finish_reason as varchar) as finish_reason,
        cast(logprobs_sha256 as varchar) as logprobs_sha256,
        cast(input_tokens as bigint) as input_tokens,
        cast(cached_input_tokens as bigint) as cached_input_tokens,
        cast(cache_write_tokens as bigint) as cache_write_tokens,
        cast(output_tokens as bigint) as output_tokens,
        cast(reasoning_tokens as bigint) as reasoning_tokens,
        cast(cost_usd as double) as cost_usd,
        cast(cost_status as varchar) as cost_status,
        cast(price_table_version as varchar) as price_table_version,
        cast(latency_ms as double) as latency_ms,
        -- the study whose run paid for the call (null: a call made outside any study)
        cast(study as varchar) as study_id,
        -- v3: the Dagster run and asset whose step made the call (both null outside Dagster: the CLI)
        cast(dagster_run_id as varchar) as dagster_run_id,
        cast(asset as varchar) as asset,
        -- v3: the provider batch that answered the call (priced at the batch rate); null: answered alone
        cast(batch_id as varchar) as batch_id,
        cast(endpoint as varchar) as endpoint,
        -- v4: the reviewer system step that made the call (null: not a system's step); reviewer_config
        -- is then the system configuration
        cast(system as varchar) as system_name,
        cast(step as varchar) as system_step,
        cast(round as integer) as system_round,
        -- v5: what the model's request rules dropped or changed in params_json (null: sent as asked)
        cast(param_changes_json as varchar) as param_changes_json,
        status = 'ok' as is_ok,
        is_duplicate_success

    from source

)

select * from renamed
