-- How far to trust `peerlake run --dry-run`: for each real run that recorded an estimate, per
-- purpose / template / provider / model, the estimated new calls, tokens and cost beside what the run
-- actually paid for (its ok llm_calls), their ratios, and whether the actual fell in the interval.
-- Only new calls are compared: a replay costs nothing and writes no llm_call. Calls the cost cap
-- refused were estimated but never made, so a capped run shows actual below estimate.
with

estimates as (

    select * from {{ ref('stg_events__run_estimates') }}
    where not is_dry_run and is_new

),

llm_calls as (

    select * from {{ ref('fct_llm_calls') }}

),

estimated as (

    select
        dagster_run_id,
        any_value(study_id) as study_id,
        purpose,
        prompt_template,
        provider,
        model,
        sum(n_calls) as est_calls,
        sum(est_input_tokens) as est_input_tokens,
        sum(est_input_tokens_lo) as est_input_tokens_lo,
        sum(est_input_tokens_hi) as est_input_tokens_hi,
        sum(est_output_tokens) as est_output_tokens,
        sum(est_output_tokens_lo) as est_output_tokens_lo,
        sum(est_output_tokens_hi) as est_output_tokens_hi,
        -- unknown (null) as soon as one estimated call has no price: never a partial sum
        case when count(*) = count(est_cost_usd) then sum(est_cost_usd) end as est_cost_usd,
        case when count(*) = count(est_cost_lo_usd) then sum(est_cost_lo_usd) end as est_cost_lo_usd,
        case when count(*) = count(est_cost_hi_usd) then sum(est_cost_hi_usd) end as est_cost_hi_usd

    from estimates
    group by dagster_run_id, purpose, prompt_template, provider, model

),

actual as (

    select
        llm_calls.dagster_run_id,
        any_value(llm_calls.study_id) as study_id,
        llm_calls.purpose,
        llm_calls.prompt_template,
        llm_calls.provider,
        llm_calls.model,
        count(*) as actual_calls,
        sum(llm_calls.input_tokens) as actual_input_tokens,
        sum(llm_calls.output_tokens) as actual_output_tokens,
        case when count(*) = count(llm_calls.cost_usd) then sum(llm_calls.cost_usd) end as actual_cost_usd

    from llm_calls
    where
        llm_calls.is_ok
        and not llm_calls.is_duplicate_success
        and llm_calls.dagster_run_id in (select estimates.dagster_run_id from estimates)
    group by
        llm_calls.dagster_run_id, llm_calls.purpose, llm_calls.prompt_template, llm_calls.provider, llm_calls.model

),

joined as (

    select
        coalesce(e.dagster_run_id, a.dagster_run_id) as dagster_run_id,
        coalesce(e.study_id, a.study_id) as study_id,
        coalesce(e.purpose, a.purpose) as purpose,
        coalesce(e.prompt_template, a.prompt_template) as prompt_template,
        coalesce(e.provider, a.provider) as provider,
        coalesce(e.model, a.model) as model,
        coalesce(e.est_calls, 0) as est_calls,
        coalesce(a.actual_calls, 0) as actual_calls,
        e.est_input_tokens,
        e.est_input_tokens_lo,
        e.est_input_tokens_hi,
        -- a group the run made no call in spent nothing (not unknown)
        case when a.actual_calls is null then 0 else a.actual_input_tokens end as actual_input_tokens,
        e.est_output_tokens,
        e.est_output_tokens_lo,
        e.est_output_tokens_hi,
        case when a.actual_calls is null then 0 else a.actual_output_tokens end as actual_output_tokens,
        e.est_cost_usd,
        e.est_cost_lo_usd,
        e.est_cost_hi_usd,
        case when a.actual_calls is null then 0 else a.actual_cost_usd end as actual_cost_usd

    from estimated as e
    full outer join actual as a
        on
            e.dagster_run_id = a.dagster_run_id
            and e.purpose = a.purpose
            and e.prompt_template is not distinct from a.prompt_template
            and e.provider = a.provider
            and e.model = a.model

),

final as (

    select
        md5(concat_ws('|', dagster_run_id, purpose, coalesce(prompt_template, ''), provider, model))
            as estimate_accuracy_id,
        *,
        -- actual / estimate; null when the estimate is 0 or unknown
        actual_calls / nullif(est_calls, 0) as calls_ratio,
        actual_input_tokens / nullif(est_input_tokens, 0) as input_tokens_ratio,
        actual_output_tokens / nullif(est_output_tokens, 0) as output_tokens_ratio,
        actual_cost_usd / nullif(est_cost_usd, 0) as cost_ratio,
        -- null when either side is unknown (an unpriced model, a group only one side has)
        case
            when actual_output_tokens is not null and est_output_tokens_lo is not null
                then actual_output_tokens between est_output_tokens_lo and est_output_tokens_hi
        end as is_output_tokens_in_interval,
        case
            when actual_cost_usd is not null and est_cost_lo_usd is not null
                then actual_cost_usd between est_cost_lo_usd and est_cost_hi_usd
        end as is_cost_in_interval

    from joined

)

select * from final
