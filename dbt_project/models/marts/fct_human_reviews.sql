-- One row per human review: its latest import.
with

human_reviews as (

    select * from {{ ref('stg_events__human_reviews') }}

),

latest as (

    -- Re-importing a review (e.g. after the source fixed a rating) supersedes the earlier copy.
    select *
    from human_reviews
    qualify row_number() over (
        partition by human_review_id order by imported_at desc, human_review_imported_id desc
    ) = 1

),

final as (

    select
        human_review_id,
        paper_id,
        review_source,
        venue,
        rating,
        rating_scale,
        confidence,
        body_sha256,
        imported_at,
        human_review_imported_id

    from latest

)

select * from final
