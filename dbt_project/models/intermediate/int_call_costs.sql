-- Every llm_call attempt, and every duplicate success the seal set aside (paid for too), priced
-- again from the newest price table recorded in the lake with the price in force on the attempt's
-- UTC day (ASOF join on effective_from): cached-input, cache-write and, for a provider batch's
-- answer, batch rates. The cost the gateway recorded is kept beside it. A free provider's call costs
-- 0; an answered call with no price in force is null and flagged 'unknown_model', never 0.
-- Incremental: a build prices only the calls the table has not seen (a call's row depends on its own
-- event and the newest price table alone). The version covers every recorded price table, so a new
-- one re-prices every call (macros/incremental_version.sql), as does a change to this code or above.
{{ config(
    materialized='incremental',
    unique_key='llm_call_id',
    incremental_strategy='delete+insert',
    on_schema_change='sync_all_columns',
    pre_hook=["{{ clear_unless_written_by_this_code(event_ids_sql('price_table_recorded')) }}"],
    post_hook=["{{ record_code_version(event_ids_sql('price_table_recorded')) }}"]
) }}

with

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

price_tables as (

    select * from {{ ref('stg_events__price_tables') }}

),

attempts as (

    -- copies of one event (same id) are one attempt; never let them double a cost
    select
        * exclude (cost_usd, cost_status, price_table_version),
        -- what the gateway recorded when it made the call (with the table of that day)
        cost_usd as recorded_cost_usd,
        cost_status as recorded_cost_status,
        price_table_version as recorded_price_table_version
    from llm_calls
    {#- is_incremental() first: a dbt unit test renders this with no source to read the context from -#}
    {% if is_incremental() and written_by_this_code(event_ids_sql('price_table_recorded')) %}
        where llm_call_id not in (select seen.llm_call_id from {{ this }} as seen)
    {% endif %}
    qualify row_number() over (partition by llm_call_id order by occurred_at) = 1

),

newest_table as (

    -- the newest recorded table holds the whole price history (each version repeats the old prices)
    select price_table_recorded_id
    from price_tables
    order by recorded_at desc, price_table_recorded_id desc
    limit 1

),

price_history as (

    select
        price_tables.provider,
        price_tables.model,
        price_tables.price_table_version,
        -- a row of a table recorded before prices were dated holds from the beginning
        coalesce(price_tables.effective_from, date '0001-01-01') as effective_from,
        price_tables.input_usd_per_mtok,
        price_tables.cached_input_usd_per_mtok,
        price_tables.cache_write_usd_per_mtok,
        price_tables.output_usd_per_mtok,
        price_tables.batch_input_usd_per_mtok,
        price_tables.batch_output_usd_per_mtok

    from price_tables
    inner join newest_table using (price_table_recorded_id)

),

priced_models as (

    select distinct
        provider,
        model
    from price_history

),

resolved as (

    -- the exact model id if the table lists it, else the id without a trailing release date
    -- (gpt-4.1-mini-2025-04-14 -> gpt-4.1-mini), as llm_calls.cost.PriceTable.history does
    select
        attempts.*,
        cast(timezone('UTC', attempts.occurred_at) as date) as call_day,
        case
            when priced_models.model is not null then attempts.model
            else regexp_replace(attempts.model, '-(\d{4}-\d{2}-\d{2}|\d{8})$', '')
        end as price_model

    from attempts
    left join priced_models
        on
            attempts.provider = priced_models.provider
            and attempts.model = priced_models.model

),

with_price as (

    select
        resolved.*,
        price_history.price_table_version as priced_with_table_version,
        price_history.effective_from as price_effective_from,
        price_history.input_usd_per_mtok,
        price_history.cached_input_usd_per_mtok,
        price_history.cache_write_usd_per_mtok,
        price_history.output_usd_per_mtok,
        price_history.batch_input_usd_per_mtok,
        price_history.batch_output_usd_per_mtok

    from resolved
    asof left join price_history
        on
            resolved.provider = price_history.provider
            and resolved.price_model = price_history.model
            and resolved.call_day >= price_history.effective_from

),

rates as (

    select
        *,
        batch_id is not null as is_batch,
        input_tokens
        - coalesce(cached_input_tokens, 0)
        - coalesce(cache_write_tokens, 0) as uncached_input_tokens,
        -- a batch answer: batch rates, with cached-input and cache-write tokens discounted by the
        -- same share as input (both providers' batch APIs halve every token class)
        case
            when batch_id is null then input_usd_per_mtok
            else batch_input_usd_per_mtok
        end as input_rate,
        case
            when batch_id is null then cached_input_usd_per_mtok
            else cached_input_usd_per_mtok * batch_input_usd_per_mtok / nullif(input_usd_per_mtok, 0)
        end as cached_input_rate,
        case
            when batch_id is null then cache_write_usd_per_mtok
            else cache_write_usd_per_mtok * batch_input_usd_per_mtok / nullif(input_usd_per_mtok, 0)
        end as cache_write_rate,
        case
            when batch_id is null then output_usd_per_mtok
            else batch_output_usd_per_mtok
        end as output_rate

    from with_price

),

statused as (

    select
        *,
        -- the same order of checks as llm_calls.cost.price_call (a failed attempt carries no usage)
        case
            when not is_ok then 'no_usage'
            when recorded_cost_status = 'free' then 'free'
            when input_rate is null or output_rate is null then 'unknown_model'
            when input_tokens is null or output_tokens is null then 'no_usage'
            when uncached_input_tokens < 0 then 'bad_usage'
            else 'priced'
        end as priced_cost_status

    from rates

),

final as (

    select
        llm_call_id,
        occurred_at,
        call_day,
        request_key,
        purpose,
        subject_id,
        attempt,
        status,
        is_ok,
        is_duplicate_success,
        provider,
        model,
        prompt_template,
        prompt_hash,
        reviewer_config,
        system_name,
        system_step,
        study_id,
        dagster_run_id,
        asset,
        batch_id,
        is_batch,
        input_tokens,
        cached_input_tokens,
        cache_write_tokens,
        uncached_input_tokens,
        output_tokens,
        reasoning_tokens,
        case priced_cost_status
            when 'free' then 0.0
            when 'priced'
                then (
                    uncached_input_tokens * input_rate
                    + coalesce(cached_input_tokens, 0) * cached_input_rate
                    + coalesce(cache_write_tokens, 0) * cache_write_rate
                    + output_tokens * output_rate
                ) / 1000000.0
        end as cost_usd,
        priced_cost_status as cost_status,
        priced_with_table_version,
        price_effective_from,
        recorded_cost_usd,
        recorded_cost_status,
        recorded_price_table_version

    from statused

)

select * from final
