-- One row per request answered from the log instead of paid again (calls_replayed, one event per
-- batch of replays, unnested). Rename, cast and unnest only.
with

source as (

    select * from {{ source('events', 'calls_replayed') }}

),

unnested as (

    select
        *,
        unnest(range(cast(n as bigint))) as position

    from source

),

renamed as (

    select
        cast(event_id as varchar) || ':' || cast(position as varchar) as replay_id,
        cast(event_id as varchar) as calls_replayed_id,
        cast(occurred_at as timestamptz) as replayed_at,
        cast(door as varchar) as door,
        cast(position as integer) as position,
        -- the i-th request key was answered by the i-th ok event (an llm_call or retrieval_call)
        cast(request_keys_json as varchar[])[position + 1] as request_key,
        cast(answer_event_ids_json as varchar[])[position + 1] as answer_event_id,
        -- who replayed: the study, Dagster run and asset of the step (null outside Dagster: the CLI)
        cast(study as varchar) as study_id,
        cast(dagster_run_id as varchar) as dagster_run_id,
        cast(asset as varchar) as asset

    from unnested

)

select * from renamed
