-- One row per DISAPERE label row (human_label_imported of dataset disapere): one annotator's labels of
-- one review sentence, as the dataset gives them and as the depth and novelty judges' labels under the
-- mapping (prompts/label_mappings/disapere.toml, named by label_mapping_sha256). Rename and cast only.
with

source as (

    select * from {{ source('events', 'human_label_imported') }}
    where dataset = 'disapere'

),

renamed as (

    select
        cast(event_id as varchar) as human_label_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(item_key as varchar) as item_key,
        cast(review_key as varchar) as review_key,
        cast(paper_id as varchar) as paper_id,
        cast(split as varchar) as dataset_split,
        cast(annotator as varchar) as annotator,
        -- true: final_dataset/ (the reference); false: an extra annotation of the same review
        cast(is_reference as boolean) as is_reference,
        cast(item_text as varchar) as sentence_text,
        cast(start as integer) as sentence_start,
        cast("end" as integer) as sentence_end,
        cast(judged_start as integer) as judged_start,
        cast(judged_end as integer) as judged_end,
        cast(cast(labels_json as json) ->> 'review_action' as varchar) as review_action,
        cast(cast(labels_json as json) ->> 'fine_review_action' as varchar) as fine_review_action,
        cast(cast(labels_json as json) ->> 'aspect' as varchar) as disapere_aspect,
        cast(cast(labels_json as json) ->> 'polarity' as varchar) as polarity,
        cast(cast(mapped_json as json) ->> 'role' as varchar) as depth_role,
        cast(cast(mapped_json as json) ->> 'is_unit' as boolean) as is_argument_unit,
        cast(cast(mapped_json as json) ->> 'aspect' as varchar) as depth_aspect,
        cast(cast(mapped_json as json) ->> 'aspect_prism_paper' as varchar) as depth_aspect_prism_paper,
        cast(cast(mapped_json as json) ->> 'novelty_stance' as varchar) as novelty_stance,
        cast(mapping as varchar) as label_mapping,
        cast(mapping_sha256 as varchar) as label_mapping_sha256,
        cast(source_path as varchar) as source_path

    from source

)

select * from renamed
