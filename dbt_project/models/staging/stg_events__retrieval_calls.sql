-- One row per retrieval_call event: one search of a literature backend (offline index, Semantic
-- Scholar), ok or error. Rename and cast only.
with

source as (

    select * from {{ source('events', 'retrieval_call') }}

),

renamed as (

    select
        cast(event_id as varchar) as retrieval_call_id,
        cast(occurred_at as timestamptz) as occurred_at,
        cast(schema_version as integer) as schema_version,
        cast(request_key as varchar) as request_key,
        cast(backend as varchar) as backend,
        cast(query as varchar) as query,
        cast(params_json as json) as params,
        cast(results_json as json) as results,
        cast(n_results as integer) as n_results,
        cast(latency_ms as double) as latency_ms,
        cast(attempt as integer) as attempt,
        cast(status as varchar) as status,
        cast(error_type as varchar) as error_type,
        cast(error_message as varchar) as error_message,
        cast(purpose as varchar) as purpose,
        cast(subject_id as varchar) as subject_id,
        -- the study whose run made the search (a label; searches are replayed across studies)
        cast(study as varchar) as study_id,
        -- v2: the Dagster run and asset that made the search (both null outside Dagster: the CLI)
        cast(dagster_run_id as varchar) as dagster_run_id,
        cast(asset as varchar) as asset,
        status = 'ok' as is_ok

    from source

)

select * from renamed
