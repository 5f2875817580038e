-- One row per label a person entered in the browser (human_label_entered, `peerlake label STUDY`): one
-- annotator's label of one judged review of a study on one of the judge's dimensions, on the whole review
-- or on a span of the text the judge read (judged_start/judged_end, Python code points, in the text whose
-- SHA-256 is text_sha256). The label is the judge's own choice: no mapping made it. Rename and cast only.
with

source as (

    select * from {{ source('events', 'human_label_entered') }}

),

renamed as (

    select
        cast(event_id as varchar) as entered_label_id,
        cast(occurred_at as timestamptz) as entered_at,
        cast(schema_version as integer) as schema_version,
        cast(study as varchar) as study_id,
        cast(judge as varchar) as judge,
        cast(judge_config as varchar) as judge_config,
        cast(judgment_id as varchar) as judgment_id,
        cast(item_key as varchar) as item_key,
        cast(review_key as varchar) as review_key,
        cast(paper_id as varchar) as paper_id,
        cast(annotator as varchar) as annotator,
        cast(dimension as varchar) as dimension,
        cast(label as varchar) as label,
        cast(mapped_json as varchar) as mapped_json,
        -- null: the whole review was labelled
        cast(item_text as varchar) as span_text,
        cast(judged_start as integer) as judged_start,
        cast(judged_end as integer) as judged_end,
        cast(text_sha256 as varchar) as text_sha256,
        -- false: blind (the page did not show the judge's labels)
        cast(judge_shown as boolean) as is_judge_shown

    from source

)

select * from renamed
