-- One row per human_review_imported event (a review may be imported more than once). Rename and
-- cast only.
with

source as (

    select * from {{ source('events', 'human_review_imported') }}

),

renamed as (

    select
        cast(event_id as varchar) as human_review_imported_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(review_id as varchar) as human_review_id,
        cast(paper_id as varchar) as paper_id,
        cast(source as varchar) as review_source,
        cast(venue as varchar) as venue,
        cast(rating as double) as rating,
        cast(rating_scale as varchar) as rating_scale,
        cast(confidence as double) as confidence,
        cast(body_sha256 as varchar) as body_sha256

    from source

)

select * from renamed
