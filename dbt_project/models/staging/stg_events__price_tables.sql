-- One row per dated price in each recorded price table version (price_table_recorded.prices_json).
-- Rename, cast and unnest only; which version is in force is int_call_costs' business.
with

source as (

    select * from {{ source('events', 'price_table_recorded') }}

),

unnested as (

    select
        event_id,
        occurred_at,
        version,
        source_sha256,
        unnest(cast(prices_json as json[])) as price

    from source

),

renamed as (

    select
        md5(concat_ws(
            '|', event_id, price ->> 'provider', price ->> 'model', coalesce(price ->> 'effective_from', '')
        )) as price_id,
        cast(event_id as varchar) as price_table_recorded_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(version as varchar) as price_table_version,
        cast(source_sha256 as varchar) as source_sha256,
        cast(price ->> 'provider' as varchar) as provider,
        cast(price ->> 'model' as varchar) as model,
        -- null in tables recorded before prices were dated (version 2026.11.1)
        cast(price ->> 'effective_from' as date) as effective_from,
        cast(price ->> 'checked' as date) as checked_on,
        -- USD per million tokens; null = not listed
        cast(price ->> 'input' as double) as input_usd_per_mtok,
        cast(price ->> 'cached_input' as double) as cached_input_usd_per_mtok,
        cast(price ->> 'cache_write' as double) as cache_write_usd_per_mtok,
        cast(price ->> 'output' as double) as output_usd_per_mtok,
        cast(price ->> 'batch_input' as double) as batch_input_usd_per_mtok,
        cast(price ->> 'batch_output' as double) as batch_output_usd_per_mtok

    from unnested

)

select * from renamed
