-- One row per span_annotation_imported event: the human spans of one review (e.g. SubstanReview's
-- claim / evidence spans). Rename and cast only.
with

source as (

    select * from {{ source('events', 'span_annotation_imported') }}

),

renamed as (

    select
        cast(event_id as varchar) as span_annotation_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(review_key as varchar) as review_key,
        cast(dataset as varchar) as dataset,
        cast(split as varchar) as dataset_split,
        -- null: the dataset's final (adjudicated) labels
        cast(annotator as varchar) as annotator,
        cast(spans_json as json) as spans,
        cast(text_sha256 as varchar) as text_sha256,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as line_no

    from source

)

select * from renamed
