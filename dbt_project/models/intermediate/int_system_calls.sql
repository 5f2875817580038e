-- One row per (system review, call it names): the calls_json of each review in int_system_reviews,
-- in the order made, joined by request_key to the answered llm_call (its tokens, its cost priced
-- again as int_call_costs prices it, its latency) and to the failed attempts before it. A call
-- the review replayed from an earlier run (another study's, or before a re-run) still counts: this
-- is what the review cost to make, whoever paid; paid_by_study says who did.
with

system_reviews as (

    -- the newest review per slot (int_system_reviews): what a review cost to make
    select * from {{ ref('int_system_reviews') }}

),

steps as (

    select * from {{ ref('int_system_review_steps') }}

),

call_costs as (

    select * from {{ ref('int_call_costs') }}

),

final as (

    select
        steps.system_call_id,
        steps.system_review_id,
        steps.call_index,
        steps.request_key,
        steps.system_step,
        steps.system_round,
        steps.member,
        steps.llm_call_id,
        steps.recorded_llm_call_id,
        steps.llm_call_id is not null as is_answer_found,
        steps.answered_at,
        steps.paid_by_study,
        steps.n_error_attempts,
        call_costs.provider,
        call_costs.model,
        call_costs.prompt_template,
        call_costs.input_tokens,
        call_costs.cached_input_tokens,
        call_costs.output_tokens,
        call_costs.cost_usd,
        -- 'missing': the review names a request no answered llm_call in the lake holds
        coalesce(call_costs.cost_status, 'missing') as cost_status,
        steps.latency_ms

    from steps
    inner join system_reviews on steps.system_review_id = system_reviews.system_review_id
    left join call_costs on steps.llm_call_id = call_costs.llm_call_id

)

select * from final
