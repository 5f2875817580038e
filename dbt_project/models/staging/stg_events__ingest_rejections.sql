-- One row per ingest_rejected event: an input set aside, with where and why. Rename and cast only.
with

source as (

    select * from {{ source('events', 'ingest_rejected') }}

),

renamed as (

    select
        cast(event_id as varchar) as ingest_rejection_id,
        cast(occurred_at as timestamptz) as rejected_at,
        cast(schema_version as integer) as schema_version,
        cast(source as varchar) as input_kind,
        cast(path as varchar) as input_path,
        cast(reason as varchar) as reason,
        cast(severity as varchar) as severity,
        cast(item as varchar) as input_item,
        cast(paper_id as varchar) as paper_id,
        cast(content_sha256 as varchar) as content_sha256

    from source

)

select * from renamed
