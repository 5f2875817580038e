-- One row per (system_review event, call it names), every event (not only the newest per slot), in
-- the order made: the request, the step, and the llm call that answered it (the first ok event of
-- the request, the answer every replay returned; a second one would be a producer bug, as
-- int_ai_reviews_parsed says) with the failed attempts at that request. int_system_calls prices the
-- newest reviews' calls from it; fct_call_system_runs lists every run's chain.
with

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

deduplicated as (

    -- copies of one event (same id) are one review
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
        llm_call_id,
        occurred_at,
        study_id,
        latency_ms
    from llm_calls
    where is_ok and is_duplicate_success is not true
    qualify row_number() over (partition by request_key order by occurred_at, llm_call_id) = 1

),

errors as (

    -- copies of one failed event (same id) are one attempt
    select
        request_key,
        count(distinct llm_call_id) as n_error_attempts
    from llm_calls
    where not is_ok
    group by request_key

),

final as (

    select
        review_calls.system_review_id || '|' || review_calls.call_index as system_call_id,
        review_calls.system_review_id,
        review_calls.call_index,
        review_calls.request_key,
        review_calls.system_step,
        review_calls.system_round,
        review_calls.member,
        review_calls.recorded_llm_call_id,
        answers.llm_call_id,
        answers.occurred_at as answered_at,
        -- the study whose run made (and paid for) the call
        answers.study_id as paid_by_study,
        answers.latency_ms,
        coalesce(errors.n_error_attempts, 0) as n_error_attempts

    from review_calls
    left join answers on review_calls.request_key = answers.request_key
    left join errors on review_calls.request_key = errors.request_key

)

select * from final
