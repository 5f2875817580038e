-- One row per human review: its latest import, with whether its rating lies on the venue's scale
-- and whether the paper it reviews is known (a manuscript or a status).
with

human_reviews as (

    select * from {{ ref('stg_events__human_reviews') }}

),

papers as (

    select distinct paper_id from {{ ref('stg_events__papers') }}

),

statuses as (

    select distinct paper_id from {{ ref('stg_events__paper_statuses') }}

),

latest as (

    -- Re-importing a review (e.g. after the source fixed a rating) supersedes the earlier copy.
    select *
    from human_reviews
    qualify row_number() over (
        partition by human_review_id order by imported_at desc, human_review_imported_id desc
    ) = 1

),

scaled as (

    select
        *,
        -- "ICLR2025:1,3,5,6,8,10" → name and allowed values
        split_part(rating_scale, ':', 1) as rating_scale_name,
        try_cast(string_split(split_part(rating_scale, ':', 2), ',') as double[]) as rating_scale_values

    from latest

),

final as (

    select
        scaled.human_review_id,
        scaled.paper_id,
        scaled.review_source,
        scaled.venue,
        scaled.rating,
        scaled.rating_scale,
        scaled.rating_scale_name,
        list_min(scaled.rating_scale_values) as rating_scale_min,
        list_max(scaled.rating_scale_values) as rating_scale_max,
        case
            when scaled.rating is null or scaled.rating_scale is null then null
            else list_contains(scaled.rating_scale_values, scaled.rating)
        end as is_rating_on_scale,
        scaled.confidence,
        papers.paper_id is not null or statuses.paper_id is not null as has_known_paper,
        scaled.body_sha256,
        scaled.imported_at,
        scaled.human_review_imported_id

    from scaled
    left join papers using (paper_id)
    left join statuses using (paper_id)

)

select * from final
