-- One row per system_review event, every one (not only the newest per slot), with its chain of steps
-- in the order made (int_system_review_steps): each step's request and the llm call that answered it
-- (the first ok event of the request, as every replay returns it), and the failed attempts before
-- it. The call viewer shows a system run as this chain.
with

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

steps as (

    select * from {{ ref('int_system_review_steps') }}

),

deduplicated as (

    select *
    from system_reviews
    qualify row_number() over (partition by system_review_id order by recorded_at) = 1

),

chains as (

    select
        system_review_id,
        count(*) as n_steps,
        count(llm_call_id) as n_steps_answered,
        list(
            {
                'call_index': call_index,
                'system_step': system_step,
                'system_round': system_round,
                'member': member,
                'request_key': request_key,
                'recorded_llm_call_id': recorded_llm_call_id,
                'llm_call_id': llm_call_id,
                'n_error_attempts': n_error_attempts
            }
            order by call_index
        ) as steps

    from steps
    group by system_review_id

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
        coalesce(chains.n_steps, 0) as n_steps,
        coalesce(chains.n_steps_answered, 0) as n_steps_answered,
        chains.steps

    from deduplicated
    left join chains on deduplicated.system_review_id = chains.system_review_id

)

select * from final
