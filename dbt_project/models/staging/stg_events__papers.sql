-- One row per paper_ingested event (a paper may be ingested more than once). Rename and cast only.
with

source as (

    select * from {{ source('events', 'paper_ingested') }}

),

renamed as (

    select
        cast(event_id as varchar) as paper_ingested_id,
        cast(occurred_at as timestamptz) as ingested_at,
        cast(schema_version as integer) as schema_version,
        cast(paper_id as varchar) as paper_id,
        cast(title as varchar) as title,
        cast(venue as varchar) as venue,
        cast(source_uri as varchar) as source_uri,
        cast(pdf_sha256 as varchar) as pdf_sha256,
        cast(package_sha256 as varchar) as package_sha256,
        cast(n_pages as integer) as n_pages,
        cast(n_text_records as integer) as n_text_records,
        cast(n_chars as bigint) as n_chars,
        cast(is_synthetic as boolean) as is_synthetic,
        -- schema v2 (layout counts); null on v1 events
        cast(n_images as integer) as n_images,
        cast(body_chars as bigint) as body_chars,
        cast(appendix_chars as bigint) as appendix_chars,
        cast(references_chars as bigint) as references_chars,
        cast(n_references as integer) as n_references,
        cast(n_sections as integer) as n_sections,
        cast(year as integer) as year,
        cast(area as varchar) as area,
        -- schema v3: records the rendered page does not show (ingest.visibility); null = not checked
        cast(n_hidden_records as integer) as n_hidden_records

    from source

)

select * from renamed
