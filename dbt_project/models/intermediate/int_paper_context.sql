-- One row per paper: what validity and rank statistics need besides AI scores — venue, year,
-- status, acceptance and the mean human score. int_papers_described gains year / status / acceptance
-- columns with the OpenReview ingest; until a column exists here it is derived or null:
--   year        <- dim_papers.year, else the first 19xx/20xx in the venue string ("ICLR 2017")
--   is_accepted <- dim_papers.is_accepted, else acceptance_label (1/0), else status, else null
--   is_withdrawn <- dim_papers.is_withdrawn, else status mentions "withdr", else null
-- dim_papers may hold one row per paper version; the latest version speaks for the paper.
{%- set cols = relation_column_names(ref('int_papers_described')) %}
with

papers as (

    select * from {{ ref('int_papers_described') }}
    qualify row_number() over (
        partition by paper_id
        order by
            {%- if 'is_latest_version' in cols %} is_latest_version desc,{% endif %}
            {%- set newest = 'ingested_at' if 'ingested_at' in cols else 'paper_id' %}
            {{ 'latest_ingested_at' if 'latest_ingested_at' in cols else newest }} desc
    ) = 1

),

derived as (

    select
        paper_id,
        cast(venue as varchar) as venue,
        {% if 'year' in cols -%}
        cast(year as integer) as year,
        {%- else -%}
            try_cast(regexp_extract(venue, '(19|20)[0-9][0-9]') as integer) as year,
        {%- endif %}
        {% if 'status' in cols -%}
        cast(status as varchar) as status,
        {%- else -%}
            cast(null as varchar) as status,
        {%- endif %}
        {% if 'is_accepted' in cols -%}
        cast(is_accepted as boolean) as is_accepted,
        {%- elif 'acceptance_label' in cols -%}
        case
            when try_cast(acceptance_label as integer) is not null
                then try_cast(acceptance_label as integer) = 1
            when lower(cast(acceptance_label as varchar)) in ('accept', 'accepted', 'true') then true
            when lower(cast(acceptance_label as varchar)) in ('reject', 'rejected', 'false') then false
        end as is_accepted,
        {%- elif 'status' in cols -%}
        case
            when regexp_matches(lower(status), 'accept|oral|spotlight|poster') then true
            when regexp_matches(lower(status), 'reject|withdr') then false
        end as is_accepted,
        {%- else -%}
            cast(null as boolean) as is_accepted,
        {%- endif %}
        {% if 'is_withdrawn' in cols -%}
        cast(is_withdrawn as boolean) as is_withdrawn,
        {%- elif 'status' in cols -%}
        regexp_matches(lower(status), 'withdr') as is_withdrawn,
        {%- else -%}
            cast(null as boolean) as is_withdrawn,
        {%- endif %}
        cast({{ 'human_score_mean' if 'human_score_mean' in cols else 'human_rating_mean' }} as double)
            as human_score_mean

    from papers

),

final as (

    select
        *,
        -- Rankings compare papers of one venue-year; papers without a venue share one group.
        case
            when venue is null and year is null then null
            when year is null or contains(coalesce(venue, ''), cast(year as varchar)) then venue
            else concat_ws(' ', venue, cast(year as varchar))
        end as venue_year

    from derived

)

select * from final
