-- One row per revision_outcome event: what one (paper, Writer, Selector) condition of the revision
-- crossover made (reviewing.revision). Rename and cast only.
with

source as (

    select * from {{ source('events', 'revision_outcome') }}

),

renamed as (

    select
        cast(event_id as varchar) as revision_outcome_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(schema_version as integer) as schema_version,
        cast(outcome_key as varchar) as outcome_key,
        cast(study_id as varchar) as study_id,
        cast(spec_id as varchar) as spec_id,
        cast(paper_id as varchar) as paper_id,
        cast(writer as varchar) as writer,
        cast(selector as varchar) as selector,
        cast(writer_model as varchar) as writer_model,
        cast(selector_model as varchar) as selector_model,
        cast(status as varchar) as status,
        cast(blocked_reason as varchar) as blocked_reason,
        cast(n_candidates as integer) as n_candidates,
        cast(n_accepted as integer) as n_accepted,
        cast(n_reasons_truncated as integer) as n_reasons_truncated,
        cast(diffs_json as json) as diffs,
        cast(checks_json as json) as checks,
        cast(n_image_entries as integer) as n_image_entries,
        cast(n_images_rehashed as integer) as n_images_rehashed,
        cast(final_paper_id as varchar) as final_paper_id,
        cast(feedback_request_key as varchar) as feedback_request_key,
        cast(writer_request_key as varchar) as writer_request_key,
        cast(selector_request_key as varchar) as selector_request_key

    from source

)

select * from renamed
