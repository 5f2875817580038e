-- One row per paper: its latest ingested version, with the human reviews' mean rating.
with

papers as (

    select * from {{ ref('stg_events__papers') }}

),

human_reviews as (

    select * from {{ ref('fct_human_reviews') }}

),

latest_version as (

    select
        *,
        count(*) over (partition by paper_id) as n_versions

    from papers
    qualify row_number() over (
        partition by paper_id order by ingested_at desc, paper_ingested_id desc
    ) = 1

),

human_ratings as (

    select
        paper_id,
        count(*) as n_human_reviews,
        avg(rating) as human_rating_mean,
        -- A mean over mixed scales means nothing; say so instead of hiding it.
        count(distinct rating_scale) as n_rating_scales,
        any_value(rating_scale) as rating_scale

    from human_reviews
    group by paper_id

),

final as (

    select
        latest_version.paper_id,
        latest_version.title,
        latest_version.venue,
        latest_version.source_uri,
        latest_version.pdf_sha256,
        latest_version.package_sha256,
        latest_version.n_pages,
        latest_version.n_text_records,
        latest_version.n_chars,
        latest_version.is_synthetic,
        latest_version.n_versions,
        latest_version.ingested_at as latest_ingested_at,
        coalesce(human_ratings.n_human_reviews, 0) as n_human_reviews,
        human_ratings.human_rating_mean,
        human_ratings.rating_scale,
        coalesce(human_ratings.n_rating_scales, 0) > 1 as has_mixed_rating_scales

    from latest_version
    left join human_ratings using (paper_id)

)

select * from final
