-- One row per paper_status_recorded event (a paper may get several over time). Rename and cast only.
with

source as (

    select * from {{ source('events', 'paper_status_recorded') }}

),

renamed as (

    select
        cast(event_id as varchar) as paper_status_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(schema_version as integer) as schema_version,
        cast(paper_id as varchar) as paper_id,
        cast(venue as varchar) as venue,
        cast(status as varchar) as status,
        cast(decision as varchar) as decision,
        cast(is_accepted as boolean) as is_accepted,
        cast(source as varchar) as status_source,
        cast(source_note_id as varchar) as source_note_id,
        cast(title as varchar) as title,
        cast(year as integer) as year,
        cast(area as varchar) as area

    from source

)

select * from renamed
