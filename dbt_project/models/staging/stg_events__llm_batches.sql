-- One row per provider batch (OpenAI Batch, Anthropic Message Batches): its submission and, once it
-- ended, its end state. A batch with no llm_batch_finished event is pending: the next run polls it.
-- Rename and cast only (the join is the batch's own two events).
with

submitted as (

    select * from {{ source('events', 'llm_batch_submitted') }}

),

finished as (

    select * from {{ source('events', 'llm_batch_finished') }}

),

-- one end state per batch: two processes may race to record it; the first one counts
first_finish as (

    select
        batch_id,
        arg_min(status, occurred_at) as status,
        arg_min(n_ok, occurred_at) as n_ok,
        arg_min(n_failed, occurred_at) as n_failed,
        arg_min(output_sha256, occurred_at) as output_sha256,
        min(occurred_at) as finished_at

    from finished
    group by batch_id

),

renamed as (

    select
        cast(s.batch_id as varchar) as batch_id,
        cast(s.event_id as varchar) as llm_batch_submitted_id,
        cast(s.occurred_at as timestamptz) as submitted_at,
        cast(s.provider as varchar) as provider,
        cast(s.endpoint as varchar) as endpoint,
        cast(s.model as varchar) as model,
        cast(s.n as integer) as n_requests,
        cast(s.input_sha256 as varchar) as input_sha256,
        cast(s.study as varchar) as study_id,
        cast(s.dagster_run_id as varchar) as dagster_run_id,
        cast(s.asset as varchar) as asset,
        coalesce(cast(f.status as varchar), 'pending') as status,
        cast(f.n_ok as integer) as n_ok,
        cast(f.n_failed as integer) as n_failed,
        cast(f.output_sha256 as varchar) as output_sha256,
        cast(f.finished_at as timestamptz) as finished_at

    from submitted as s
    left join first_finish as f on s.batch_id = f.batch_id

)

select * from renamed
