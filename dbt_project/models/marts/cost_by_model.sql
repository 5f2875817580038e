-- Calls, tokens and cost per provider / model / prompt template / prompt hash. Calls whose cost is
-- unknown are counted, never summed as 0, so an incomplete total is visible as incomplete.
with

llm_calls as (

    select * from {{ ref('fct_llm_calls') }}

),

grouped as (

    select
        provider,
        model,
        prompt_template,
        prompt_hash,
        count(*) as n_calls,
        count(*) filter (where is_ok) as n_ok_calls,
        count(*) filter (where not is_ok) as n_failed_calls,
        cast(sum(input_tokens) as bigint) as input_tokens,
        cast(sum(cached_input_tokens) as bigint) as cached_input_tokens,
        cast(sum(cache_write_tokens) as bigint) as cache_write_tokens,
        cast(sum(uncached_input_tokens) as bigint) as uncached_input_tokens,
        cast(sum(output_tokens) as bigint) as output_tokens,
        cast(sum(reasoning_tokens) as bigint) as reasoning_tokens,
        sum(cost_usd) as cost_usd,
        count(*) filter (where not has_known_cost) as n_calls_cost_unknown,
        count(*) filter (where is_ok and not has_known_cost) as n_ok_calls_cost_unknown,
        avg(latency_ms) as latency_ms_mean,
        min(occurred_at) as first_call_at,
        max(occurred_at) as last_call_at

    from llm_calls
    group by provider, model, prompt_template, prompt_hash

),

final as (

    select
        md5(concat_ws(
            '|', provider, model, coalesce(prompt_template, ''), coalesce(prompt_hash, '')
        )) as cost_group_id,
        *,
        -- Failed attempts are recorded without usage or cost (cost_status 'no_usage'); an answered
        -- call without a cost (unknown model, no usage reported) really is missing from cost_usd.
        n_ok_calls_cost_unknown = 0 as is_cost_complete

    from grouped

)

select * from final
