-- One row per RevUtil label row (human_label_imported of dataset revutil): one rater's ratings of one
-- review comment (annotator null: the dataset's majority label), as given and as the constructiveness
-- judge's 0–2 under the mapping (prompts/label_mappings/revutil.toml, named by label_mapping_sha256).
-- Rename and cast only; a rating the rater did not give, or that maps to nothing, is null.
with

source as (

    select * from {{ source('events', 'human_label_imported') }}
    where dataset = 'revutil'

),

renamed as (

    select
        cast(event_id as varchar) as human_label_id,
        cast(occurred_at as timestamptz) as imported_at,
        cast(schema_version as integer) as schema_version,
        cast(item_key as varchar) as item_key,
        cast(review_key as varchar) as review_key,
        cast(paper_id as varchar) as paper_id,
        cast(annotator as varchar) as annotator,
        cast(is_reference as boolean) as is_reference,
        cast(item_text as varchar) as comment_text,
        -- null: the comment is not found verbatim in its review
        cast(start as integer) as comment_start,
        cast("end" as integer) as comment_end,
        cast(judged_start as integer) as judged_start,
        cast(judged_end as integer) as judged_end,
        -- RevUtil's own labels: 1-5 (verifiability also X, no claim), tone and the last two 0/1
        cast(cast(labels_json as json) ->> 'actionability' as varchar) as revutil_actionability,
        cast(cast(labels_json as json) ->> 'grounding_specificity' as varchar) as revutil_grounding_specificity,
        cast(cast(labels_json as json) ->> 'verifiability' as varchar) as revutil_verifiability,
        cast(cast(labels_json as json) ->> 'helpfulness' as varchar) as revutil_helpfulness,
        cast(cast(labels_json as json) ->> 'professional_tone' as varchar) as revutil_professional_tone,
        cast(cast(labels_json as json) ->> 'valid_point' as varchar) as revutil_valid_point,
        cast(cast(labels_json as json) ->> 'addressed_to_author' as varchar) as revutil_addressed_to_author,
        cast(cast(mapped_json as json) ->> 'actionability' as integer) as actionability,
        cast(cast(mapped_json as json) ->> 'specificity' as integer) as specificity,
        cast(cast(mapped_json as json) ->> 'justification' as integer) as justification,
        -- binary: the judge's 1 and 2 both read as 1 (the mapping's judge_values)
        cast(cast(mapped_json as json) ->> 'tone' as integer) as tone_professional,
        cast(mapping as varchar) as label_mapping,
        cast(mapping_sha256 as varchar) as label_mapping_sha256,
        cast(source_path as varchar) as source_path,
        cast(line_no as integer) as csv_row

    from source

)

select * from renamed
