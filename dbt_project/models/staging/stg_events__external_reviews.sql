-- One row per external_review_imported event: a review made by another system. Rename and cast only.
with

source as (

    select * from {{ source('events', 'external_review_imported') }}

),

renamed as (

    select
        cast(event_id as varchar) as external_review_imported_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(paper_id as varchar) as paper_id,
        cast(review_id as varchar) as external_review_id,
        cast(system as varchar) as system_name,
        cast(sample_index as integer) as sample_index,
        cast(score as double) as score,
        cast(confidence as double) as confidence,
        cast(body_sha256 as varchar) as body_sha256,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as line_no

    from source

)

select * from renamed
