-- One row per paper version (each paper_ingested event), with the paper's venue, year, area,
-- latest status and acceptance label and its human reviews' mean rating. A paper known only from
-- a venue status (no manuscript ingested yet) gets one row with version_number 0, so reviews and
-- decisions imported before the PDF still have a paper to belong to.
with

papers as (

    select * from {{ ref('stg_events__papers') }}

),

statuses as (

    select * from {{ ref('stg_events__paper_statuses') }}

),

human_reviews as (

    select * from {{ ref('int_human_reviews_checked') }}

),

versions as (

    select
        *,
        row_number() over (
            partition by paper_id order by ingested_at, paper_ingested_id
        ) as version_number,
        count(*) over (partition by paper_id) as n_versions

    from papers

),

latest_status as (

    -- The newest status wins: a withdrawal after a decision, or a corrected decision.
    select
        *,
        count(*) over (partition by paper_id) as n_status_events

    from statuses
    qualify row_number() over (
        partition by paper_id order by recorded_at desc, paper_status_id desc
    ) = 1

),

status_only as (

    select latest_status.paper_id
    from latest_status
    anti join papers using (paper_id)

),

paper_rows as (

    select
        paper_ingested_id as paper_version_id,
        paper_id,
        version_number,
        n_versions,
        version_number = n_versions as is_latest_version,
        true as has_manuscript,
        title,
        venue,
        year,
        area,
        source_uri,
        pdf_sha256,
        package_sha256,
        n_pages,
        n_images,
        n_text_records,
        n_chars,
        body_chars,
        appendix_chars,
        references_chars,
        n_references,
        is_synthetic,
        ingested_at

    from versions

    union all

    select
        paper_id || '#no-manuscript' as paper_version_id,
        paper_id,
        0 as version_number,
        0 as n_versions,
        true as is_latest_version,
        false as has_manuscript,
        null as title,
        null as venue,
        null as year,
        null as area,
        null as source_uri,
        null as pdf_sha256,
        null as package_sha256,
        null as n_pages,
        null as n_images,
        null as n_text_records,
        null as n_chars,
        null as body_chars,
        null as appendix_chars,
        null as references_chars,
        null as n_references,
        false as is_synthetic,
        null as ingested_at

    from status_only

),

human_ratings as (

    select
        paper_id,
        count(*) as n_human_reviews,
        avg(rating) as human_rating_mean,
        -- A mean over mixed scales means nothing; say so instead of hiding it.
        count(distinct rating_scale) as n_rating_scales,
        any_value(rating_scale) as rating_scale,
        any_value(venue) as review_venue

    from human_reviews
    group by paper_id

),

final as (

    select
        paper_rows.paper_version_id,
        paper_rows.paper_id,
        paper_rows.version_number,
        paper_rows.n_versions,
        paper_rows.is_latest_version,
        paper_rows.has_manuscript,
        coalesce(paper_rows.title, latest_status.title) as title,
        coalesce(paper_rows.venue, latest_status.venue, human_ratings.review_venue) as venue,
        coalesce(
            paper_rows.year,
            latest_status.year,
            try_cast(regexp_extract(
                coalesce(paper_rows.venue, latest_status.venue, human_ratings.review_venue),
                '(19|20)[0-9][0-9]'
            ) as integer)
        ) as year,
        coalesce(paper_rows.area, latest_status.area) as area,
        latest_status.status,
        latest_status.decision,
        latest_status.is_accepted,
        -- The acceptance label for statistics: 1 accepted (oral/spotlight/poster), 0 rejected,
        -- withdrawn or desk-rejected; null while undecided. Filter on status to drop withdrawals.
        case
            when latest_status.is_accepted then 1
            when latest_status.is_accepted = false then 0
        end as acceptance_label,
        coalesce(latest_status.status = 'withdrawn', false) as is_withdrawn,
        coalesce(latest_status.n_status_events, 0) as n_status_events,
        paper_rows.source_uri,
        paper_rows.pdf_sha256,
        paper_rows.package_sha256,
        paper_rows.n_pages,
        paper_rows.n_images,
        paper_rows.n_text_records,
        paper_rows.n_chars,
        paper_rows.body_chars,
        paper_rows.appendix_chars,
        paper_rows.references_chars,
        paper_rows.n_references,
        paper_rows.is_synthetic,
        paper_rows.ingested_at,
        coalesce(human_ratings.n_human_reviews, 0) as n_human_reviews,
        human_ratings.human_rating_mean,
        human_ratings.rating_scale,
        coalesce(human_ratings.n_rating_scales, 0) > 1 as has_mixed_rating_scales

    from paper_rows
    left join latest_status using (paper_id)
    left join human_ratings using (paper_id)

),

checked as (

    -- Every version row of a paper must carry the same status; the gate watches this.
    select
        *,
        count(distinct status) over (partition by paper_id) as n_paper_statuses

    from final

)

select * from checked
