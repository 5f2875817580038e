-- One row per estimated call (or group of judge calls) of each run_estimated event (rows_json
-- unnested). Rename, cast and unnest only. dagster_run_id is null for a dry run.
with

source as (

    select * from {{ source('events', 'run_estimated') }}

),

unnested as (

    select
        *,
        unnest(range(cast(json_array_length(rows_json) as bigint))) as position

    from source

),

picked as (

    select
        *,
        cast(rows_json as json[])[position + 1] as est

    from unnested

),

renamed as (

    select
        cast(event_id as varchar) || ':' || cast(position as varchar) as estimate_row_id,
        cast(estimate_id as varchar) as estimate_id,
        cast(occurred_at as timestamptz) as estimated_at,
        cast(study as varchar) as study_id,
        cast(dagster_run_id as varchar) as dagster_run_id,
        dagster_run_id is null as is_dry_run,
        cast(method as varchar) as estimate_method,
        cast(position as integer) as position,
        -- null for judge calls: their requests depend on earlier answers
        cast(est ->> 'request_key' as varchar) as request_key,
        cast(est ->> 'asset' as varchar) as asset,
        cast(est ->> 'purpose' as varchar) as purpose,
        cast(est ->> 'prompt_template' as varchar) as prompt_template,
        cast(est ->> 'provider' as varchar) as provider,
        cast(est ->> 'model' as varchar) as model,
        -- false: the log already answers it, so the run replays it for free
        cast(est ->> 'new' as boolean) as is_new,
        -- 1 for a known request; reviews × calls per review for a group of judge calls
        cast(est ->> 'calls' as double) as n_calls,
        cast(est ->> 'est_input_tokens' as double) as est_input_tokens,
        cast(est ->> 'est_input_tokens_lo' as double) as est_input_tokens_lo,
        cast(est ->> 'est_input_tokens_hi' as double) as est_input_tokens_hi,
        cast(est ->> 'est_output_tokens' as double) as est_output_tokens,
        cast(est ->> 'est_output_tokens_lo' as double) as est_output_tokens_lo,
        cast(est ->> 'est_output_tokens_hi' as double) as est_output_tokens_hi,
        -- null: the model has no price (never 0); 0 for a replay or a free model
        cast(est ->> 'est_cost_usd' as double) as est_cost_usd,
        cast(est ->> 'est_cost_lo_usd' as double) as est_cost_lo_usd,
        cast(est ->> 'est_cost_hi_usd' as double) as est_cost_hi_usd,
        cast(est ->> 'basis' as varchar) as estimate_basis

    from picked

)

select * from renamed
