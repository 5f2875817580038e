-- One row per thing that costs or saves money, with the label of each cost_breakdown dimension: an
-- llm_call attempt (paid or failed), a replayed model call, a literature search, a replayed search.
-- A replay's study, run, asset and day are the replaying step's (from calls_replayed); its
-- reviewer_config, judge, model and prompt are those of the call that answered it. A missing label
-- gets a placeholder ('(no study)', '(cli)' outside Dagster) so every call counts in every dimension
-- it has; a dimension that does not apply (a search has no model) stays null.
-- Incremental: a build adds the llm_call attempts the table has not seen, and makes the replays and
-- searches again (few, and a replay's labels come from its answer, which may be sealed after it);
-- keys are never removed from the log. int_call_costs' version (its code and the price tables) is this
-- table's context, so a re-pricing there rebuilds this whole (macros/incremental_version.sql).
{{ config(
    materialized='incremental',
    unique_key='fact_id',
    incremental_strategy='delete+insert',
    on_schema_change='sync_all_columns',
    pre_hook=["{{ clear_unless_written_by_this_code(table_comment_sql(ref('int_call_costs'))) }}"],
    post_hook=["{{ record_code_version(table_comment_sql(ref('int_call_costs'))) }}"]
) }}

with

call_costs as (

    select * from {{ ref('int_call_costs') }}

),

replays as (

    select * from {{ ref('stg_events__calls_replayed') }}

),

retrieval_calls as (

    select * from {{ ref('stg_events__retrieval_calls') }}

),

llm_attempts as (

    select
        llm_call_id as fact_id,
        'llm_call' as fact_kind,
        study_id,
        dagster_run_id,
        asset,
        call_day,
        purpose,
        reviewer_config,
        system_name,
        provider,
        model,
        prompt_template,
        prompt_hash,
        1 as n_attempts,
        case when is_ok then 1 else 0 end as n_paid_calls,
        case when is_ok then 0 else 1 end as n_error_attempts,
        case when is_ok and is_batch then 1 else 0 end as n_batch_calls,
        0 as n_replays,
        0 as n_retrieval_calls,
        0 as n_retrieval_replays,
        input_tokens,
        uncached_input_tokens,
        cached_input_tokens,
        cache_write_tokens,
        output_tokens,
        reasoning_tokens,
        cost_usd,
        recorded_cost_usd,
        case when is_ok and cost_usd is null then 1 else 0 end as n_unpriced_calls

    from call_costs
    {% if is_incremental() and written_by_this_code(table_comment_sql(ref('int_call_costs'))) %}
        where llm_call_id not in (select seen.fact_id from {{ this }} as seen)
    {% endif %}

),

llm_replays as (

    -- who replayed (study, run, asset, day) from the replay; what was replayed from its answer
    select
        replays.replay_id as fact_id,
        'llm_replay' as fact_kind,
        replays.study_id,
        replays.dagster_run_id,
        replays.asset,
        cast(timezone('UTC', replays.replayed_at) as date) as call_day,
        answers.purpose,
        answers.reviewer_config,
        answers.system_name,
        answers.provider,
        answers.model,
        answers.prompt_template,
        answers.prompt_hash,
        0 as n_attempts,
        0 as n_paid_calls,
        0 as n_error_attempts,
        0 as n_batch_calls,
        1 as n_replays,
        0 as n_retrieval_calls,
        0 as n_retrieval_replays,
        null as input_tokens,
        null as uncached_input_tokens,
        null as cached_input_tokens,
        null as cache_write_tokens,
        null as output_tokens,
        null as reasoning_tokens,
        null as cost_usd,
        null as recorded_cost_usd,
        0 as n_unpriced_calls

    from replays
    left join call_costs as answers on replays.answer_event_id = answers.llm_call_id
    where replays.door = 'llm'

),

searches as (

    -- literature searches: a study's, a run's, an asset's, a day's and the novelty judge's
    select
        retrieval_call_id as fact_id,
        'search' as fact_kind,
        study_id,
        dagster_run_id,
        asset,
        cast(timezone('UTC', occurred_at) as date) as call_day,
        purpose,
        null as reviewer_config,
        null as provider,
        null as model,
        null as prompt_template,
        null as prompt_hash,
        0 as n_attempts,
        0 as n_paid_calls,
        0 as n_error_attempts,
        0 as n_batch_calls,
        0 as n_replays,
        1 as n_retrieval_calls,
        0 as n_retrieval_replays,
        null as input_tokens,
        null as uncached_input_tokens,
        null as cached_input_tokens,
        null as cache_write_tokens,
        null as output_tokens,
        null as reasoning_tokens,
        null as cost_usd,
        null as recorded_cost_usd,
        0 as n_unpriced_calls

    from retrieval_calls

),

search_replays as (

    select
        replays.replay_id as fact_id,
        'search_replay' as fact_kind,
        replays.study_id,
        replays.dagster_run_id,
        replays.asset,
        cast(timezone('UTC', replays.replayed_at) as date) as call_day,
        answers.purpose,
        null as reviewer_config,
        null as provider,
        null as model,
        null as prompt_template,
        null as prompt_hash,
        0 as n_attempts,
        0 as n_paid_calls,
        0 as n_error_attempts,
        0 as n_batch_calls,
        0 as n_replays,
        0 as n_retrieval_calls,
        1 as n_retrieval_replays,
        null as input_tokens,
        null as uncached_input_tokens,
        null as cached_input_tokens,
        null as cache_write_tokens,
        null as output_tokens,
        null as reasoning_tokens,
        null as cost_usd,
        null as recorded_cost_usd,
        0 as n_unpriced_calls

    from replays
    left join retrieval_calls as answers on replays.answer_event_id = answers.retrieval_call_id
    where replays.door = 'retrieval'

),

facts as (

    select * from llm_attempts
    union all by name
    select * from llm_replays
    union all by name
    select * from searches
    union all by name
    select * from search_replays

),

final as (

    -- a null label gets a placeholder, so every call is counted in every dimension it has
    select
        *,
        coalesce(study_id, '(no study)') as study_key,
        reviewer_config as reviewer_config_key,
        -- purpose judge_<judge>_<step>: judge names are one word (depth, novelty, flaws, ...)
        case when starts_with(purpose, 'judge_') then split_part(purpose, '_', 2) end as judge_key,
        -- a reviewer system's steps (reviewing.systems); null for every other call
        system_name as system_key,
        coalesce(asset, '(cli)') as asset_key,
        coalesce(dagster_run_id, '(cli)') as run_key,
        case when model is not null then provider || '/' || model end as model_key,
        case
            when model is not null
                then coalesce(prompt_template, '(no template)') || '@' || coalesce(prompt_hash, '(no hash)')
        end as prompt_key,
        strftime(call_day, '%Y-%m-%d') as day_key

    from facts

)

select * from final
