-- One row per llm_call event: every attempt, ok and error, with usage and cost split by kind: the
-- cost the gateway recorded, and the cost int_call_costs recomputes with the price of the call's day.
-- Incremental: a build adds only the calls the table has not seen. int_call_costs' version (its code
-- and the price tables) is this table's context, so a re-pricing there rebuilds this whole.
{{ config(
    materialized='incremental',
    unique_key='llm_call_id',
    incremental_strategy='delete+insert',
    on_schema_change='sync_all_columns',
    pre_hook=["{{ clear_unless_written_by_this_code(table_comment_sql(ref('int_call_costs'))) }}"],
    post_hook=["{{ record_code_version(table_comment_sql(ref('int_call_costs'))) }}"]
) }}

with

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

call_costs as (

    -- priced again from the newest recorded price table, with the price in force on call_day
    select
        llm_call_id,
        cost_usd as recomputed_cost_usd,
        cost_status as recomputed_cost_status,
        priced_with_table_version,
        price_effective_from,
        call_day
    from {{ ref('int_call_costs') }}

),

deduplicated as (

    -- Copies of one event (same id) are one fact; never let them double a cost.
    select *
    from llm_calls
    {% if is_incremental() and written_by_this_code(table_comment_sql(ref('int_call_costs'))) %}
        where llm_call_id not in (select seen.llm_call_id from {{ this }} as seen)
    {% endif %}
    qualify row_number() over (partition by llm_call_id order by occurred_at) = 1

),

joined as (

    select
        deduplicated.*,
        call_costs.* exclude (llm_call_id)
    from deduplicated
    left join call_costs using (llm_call_id)

),

final as (

    select
        llm_call_id,
        occurred_at,
        request_key,
        purpose,
        subject_id,
        sample_index,
        attempt,
        status,
        is_ok,
        error_type,
        error_message,
        finish_reason,
        provider,
        model,
        prompt_template,
        prompt_hash,
        reviewer_config,
        input_tokens,
        cached_input_tokens,
        cache_write_tokens,
        -- input_tokens counts every prompt token, cached and cache-write ones included.
        input_tokens
        - coalesce(cached_input_tokens, 0)
        - coalesce(cache_write_tokens, 0) as uncached_input_tokens,
        output_tokens,
        reasoning_tokens,
        cost_usd,
        cost_status,
        price_table_version,
        cost_usd is not null as has_known_cost,
        recomputed_cost_usd,
        recomputed_cost_status,
        priced_with_table_version,
        price_effective_from,
        call_day,
        latency_ms,
        study_id,
        -- who made the call: null outside Dagster (the CLI, a notebook)
        dagster_run_id,
        asset,
        batch_id,
        -- a second paid answer to an answered request (kept for the cost audit, never an answer)
        is_duplicate_success,
        -- what the call viewer shows: the request as sent and the response as received stay in the
        -- blob store (the mart holds their keys), with the parameters, endpoint and system step
        request_sha256,
        response_sha256,
        params_json,
        endpoint,
        system_name,
        system_step,
        system_round

    from joined

)

select * from final
