-- One row per (system review, call it names): the calls_json of each review in int_system_reviews,
-- in the order made, joined by request_key to the answered llm_call (its tokens, its cost priced
-- again as int_call_costs prices it, its latency) and to the failed attempts before it. A call
-- the review replayed from an earlier run (another study's, or before a re-run) still counts: this
-- is what the review cost to make, whoever paid; paid_by_study says who did.
with

system_reviews as (

    select * from {{ ref('int_system_reviews') }}

),

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

call_costs as (

    select * from {{ ref('int_call_costs') }}

),

listed as (

    select
        system_review_id,
        calls,
        unnest(range(n_calls)) as call_index

    from system_reviews
    where n_calls > 0

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

    -- the answer every replay returned: the first ok event of the request (a second one would be a
    -- producer bug, as int_ai_reviews_parsed says)
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

    select
        request_key,
        count(*) as n_error_attempts
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
        answers.llm_call_id,
        review_calls.recorded_llm_call_id,
        answers.llm_call_id is not null as is_answer_found,
        answers.occurred_at as answered_at,
        -- the study whose run made (and paid for) the call
        answers.study_id as paid_by_study,
        coalesce(errors.n_error_attempts, 0) as n_error_attempts,
        call_costs.provider,
        call_costs.model,
        call_costs.prompt_template,
        call_costs.input_tokens,
        call_costs.cached_input_tokens,
        call_costs.output_tokens,
        call_costs.cost_usd,
        -- 'missing': the review names a request no answered llm_call in the lake holds
        coalesce(call_costs.cost_status, 'missing') as cost_status,
        answers.latency_ms

    from review_calls
    left join answers using (request_key)
    left join errors using (request_key)
    left join call_costs on answers.llm_call_id = call_costs.llm_call_id

)

select * from final
