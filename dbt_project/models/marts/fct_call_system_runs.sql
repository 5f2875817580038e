-- One row per system_review event, every one (not only the newest per slot), with its chain of steps
-- in the order made: each step's request and the llm call that answered it (the first ok event of
-- the request, as every replay returns it, as int_system_calls finds it), and the failed attempts
-- before it. The call viewer shows a system run as this chain.
with

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

deduplicated as (

    select *
    from system_reviews
    qualify row_number() over (partition by system_review_id order by recorded_at) = 1

),

listed as (

    select
        system_review_id,
        calls,
        unnest(range(cast(coalesce(json_array_length(calls), 0) as bigint))) as call_index

    from deduplicated

),

review_calls as (

    select
        system_review_id,
        call_index,
        json_extract_string(calls, '$[' || call_index || '].request_key') as request_key,
        json_extract_string(calls, '$[' || call_index || '].llm_call_id') as recorded_llm_call_id,
        json_extract_string(calls, '$[' || call_index || '].step') as system_step,
        cast(json_extract(calls, '$[' || call_index || '].round') as integer) as system_round,
        cast(json_extract(calls, '$[' || call_index || '].member') as integer) as member

    from listed

),

answers as (

    select
        request_key,
        llm_call_id
    from llm_calls
    where is_ok and is_duplicate_success is not true
    qualify row_number() over (partition by request_key order by occurred_at, llm_call_id) = 1

),

errors as (

    select
        request_key,
        count(distinct llm_call_id) as n_error_attempts
    from llm_calls
    where not is_ok
    group by request_key

),

steps as (

    select
        review_calls.system_review_id,
        count(*) as n_steps,
        count(answers.llm_call_id) as n_steps_answered,
        list(
            {
                'call_index': review_calls.call_index,
                'system_step': review_calls.system_step,
                'system_round': review_calls.system_round,
                'member': review_calls.member,
                'request_key': review_calls.request_key,
                'recorded_llm_call_id': review_calls.recorded_llm_call_id,
                'llm_call_id': answers.llm_call_id,
                'n_error_attempts': coalesce(errors.n_error_attempts, 0)
            }
            order by review_calls.call_index
        ) as steps

    from review_calls
    left join answers using (request_key)
    left join errors using (request_key)
    group by review_calls.system_review_id

),

final as (

    select
        deduplicated.system_review_id,
        deduplicated.recorded_at,
        deduplicated.review_key,
        deduplicated.system_name,
        deduplicated.system_config,
        deduplicated.paper_id,
        deduplicated.sample_index,
        deduplicated.provider,
        deduplicated.model,
        deduplicated.status,
        deduplicated.null_reason,
        deduplicated.score,
        deduplicated.score_scale,
        deduplicated.confidence,
        deduplicated.options,
        deduplicated.review,
        deduplicated.recorded_for_study,
        coalesce(steps.n_steps, 0) as n_steps,
        coalesce(steps.n_steps_answered, 0) as n_steps_answered,
        steps.steps

    from deduplicated
    left join steps using (system_review_id)

)

select * from final
