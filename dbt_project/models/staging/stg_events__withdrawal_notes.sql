-- One row per withdrawal_note_imported event: why a paper was withdrawn, in its authors' words
-- (the text is a blob). Rename and cast only.
with

source as (

    select * from {{ source('events', 'withdrawal_note_imported') }}

),

renamed as (

    select
        cast(event_id as varchar) as withdrawal_note_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(paper_id as varchar) as paper_id,
        cast(source as varchar) as note_source,
        cast(note_id as varchar) as source_note_id,
        cast(comment_sha256 as varchar) as comment_sha256,
        cast(comment_chars as integer) as comment_chars,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as line_no,
        cast(level as varchar) as source_level

    from source

)

select * from renamed
