-- One row per llm_call event: every attempt, ok and error, with usage and cost split by kind.
with

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

deduplicated as (

    -- Copies of one event (same id) are one fact; never let them double a cost.
    select *
    from llm_calls
    qualify row_number() over (partition by llm_call_id order by occurred_at) = 1

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
        latency_ms,
        study_id,
        -- a second paid answer to an answered request (kept for the cost audit, never an answer)
        is_duplicate_success

    from deduplicated

)

select * from final
