-- One row per ReviewCritique label row (human_label_imported of dataset reviewcritique): the experts'
-- label of one segment of an LLM review, as given and as the flaw judge's validity call under the
-- mapping (prompts/label_mappings/reviewcritique.toml, named by label_mapping_sha256). Rename and cast
-- only. Evaluation data only: the dataset's licence forbids training on it.
with

source as (

    select * from {{ source('events', 'human_label_imported') }}
    where dataset = 'reviewcritique'

),

renamed as (

    select
        cast(event_id as varchar) as human_label_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(item_key as varchar) as item_key,
        cast(review_key as varchar) as review_key,
        cast(paper_id as varchar) as paper_id,
        cast(is_reference as boolean) as is_reference,
        cast(item_text as varchar) as segment_text,
        cast(start as integer) as segment_start,
        cast("end" as integer) as segment_end,
        cast(judged_start as integer) as judged_start,
        cast(judged_end as integer) as judged_end,
        -- Yes (reliable) | No (deficient)
        cast(cast(labels_json as json) ->> 'reliability' as varchar) as reliability,
        -- "reliable", the expert's error type (lower case), or "unspecified"
        cast(cast(labels_json as json) ->> 'error_type' as varchar) as error_type,
        cast(cast(labels_json as json) ->> 'explanation' as varchar) as expert_explanation,
        cast(cast(mapped_json as json) ->> 'validity' as boolean) as is_valid_flaw,
        cast(cast(mapped_json as json) ->> 'invalid_reason' as varchar) as invalid_reason,
        cast(mapping as varchar) as label_mapping,
        cast(mapping_sha256 as varchar) as label_mapping_sha256,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as line_no

    from source

)

select * from renamed
