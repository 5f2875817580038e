-- One row per reference_label_imported event: a human-made label a judge is audited against.
-- Rename and cast only.
with

source as (

    select * from {{ source('events', 'reference_label_imported') }}

),

renamed as (

    select
        cast(event_id as varchar) as reference_label_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(dataset as varchar) as dataset,
        cast(subject_key as varchar) as subject_key,
        cast(paper_id as varchar) as paper_id,
        cast(label_json as json) as label,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as line_no,
        cast(labelled_by as varchar) as labelled_by

    from source

)

select * from renamed
