-- One row per (llm call, study that replayed it): which studies were answered from the log by a call
-- another run paid for (calls_replayed events of the model door). The call viewer's replay facet.
with

calls as (

    select * from {{ ref('fct_llm_calls') }}

),

replays as (

    select * from {{ ref('stg_events__calls_replayed') }}
    -- a replay outside any study (the CLI) names no study to list the call under
    where
        door = 'llm'
        and study_id is not null
        -- only calls the published fct_llm_calls holds (the viewer lists those); reading that gated
        -- input mart also puts this mart after the input gates, as every statistic is
        and answer_event_id in (select calls.llm_call_id from calls)

),

final as (

    select
        answer_event_id || '|' || study_id as call_replay_id,
        answer_event_id as llm_call_id,
        study_id,
        -- copies of one calls_replayed event (same id) are one replay
        count(distinct replay_id) as n_replays,
        min(replayed_at) as first_replayed_at,
        max(replayed_at) as last_replayed_at

    from replays
    group by answer_event_id, study_id

)

select * from final
