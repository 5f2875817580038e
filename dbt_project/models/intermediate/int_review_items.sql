-- One row per item of an AI review a study counts (int_study_reviews: not the humans', not a paper
-- variant's): each strength and each concern, in the review's order, for the semantic consistency mart.
-- Template reviews give their parsed answer's `strengths` and `concerns` (int_ai_reviews_parsed; only
-- a parsed review: an answer that failed the schema is a failure, not an opinion list); reviewer systems
-- their normalized review's `strengths` and `weaknesses` (an ok system_review). Imported (external)
-- reviews are left out: they are one block of text, with no list of strengths or concerns.
-- Incremental by study review: a review's items depend on its row in int_study_reviews and on the one
-- event it names (review_event_id). Before the build, the rows of a study review that changed (another
-- event, label or study) or left the studies are deleted (pre-hook, in the build's transaction); the
-- build then makes the items of every counted study review the table no longer holds.
{{ config(
    materialized='incremental',
    unique_key='study_review_id',
    incremental_strategy='delete+insert',
    on_schema_change='sync_all_columns',
    pre_hook=[
        "{{ clear_unless_written_by_this_code() }}",
        "{% if written_by_this_code() %}
        delete from {{ this }} where study_review_id in (
            select study_review_id from (
                select distinct study_review_id, study_id, paper_id, reviewer_config, reviewer_label, review_event_id
                from {{ this }}
                except
                select study_review_id, study_id, paper_id, reviewer_config, reviewer_label, review_event_id
                from {{ ref('int_study_reviews') }}
                where source <> 'human' and not is_variant
            )
        )
        {% endif %}"
    ],
    post_hook=["{{ record_code_version() }}"]
) }}

with

study_reviews as (

    select * from {{ ref('int_study_reviews') }}
    where
        source <> 'human' and not is_variant
    {% if written_by_this_code() %}
        -- after the pre-hook: the new and changed study reviews, and the ones with no items
        and study_review_id not in (select seen.study_review_id from {{ this }} as seen)
    {% endif %}

),

template_reviews as (

    select * from {{ ref('int_ai_reviews_parsed') }}
    where is_parsed

),

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}
    where is_ok

),

lists as (

    select
        study_reviews.study_id,
        study_reviews.study_review_id,
        study_reviews.paper_id,
        study_reviews.reviewer_config,
        study_reviews.reviewer_label,
        study_reviews.review_event_id,
        template_reviews.strengths,
        template_reviews.concerns
    from study_reviews
    inner join template_reviews on study_reviews.review_event_id = template_reviews.llm_call_id

    union all

    select
        study_reviews.study_id,
        study_reviews.study_review_id,
        study_reviews.paper_id,
        study_reviews.reviewer_config,
        study_reviews.reviewer_label,
        study_reviews.review_event_id,
        -- a list a system wrote as one string is one item (as int_system_reviews reads it)
        case json_type(system_reviews.review, '$.strengths')
            when 'ARRAY' then json_extract_string(system_reviews.review, '$.strengths[*]')
            when 'VARCHAR' then [json_extract_string(system_reviews.review, '$.strengths')]
        end as strengths,
        case json_type(system_reviews.review, '$.weaknesses')
            when 'ARRAY' then json_extract_string(system_reviews.review, '$.weaknesses[*]')
            when 'VARCHAR' then [json_extract_string(system_reviews.review, '$.weaknesses')]
        end as concerns
    from study_reviews
    inner join system_reviews on study_reviews.review_event_id = system_reviews.system_review_id

),

by_polarity as (

    select
        * exclude (strengths, concerns),
        'strength' as polarity,
        strengths as items
    from lists
    where strengths is not null
    union all
    select
        * exclude (strengths, concerns),
        'concern' as polarity,
        concerns as items
    from lists
    where concerns is not null

),

unnested as (

    select
        * exclude (items),
        -- 0-based position in the review's own list (kept when an empty item is dropped below)
        generate_subscripts(items, 1) - 1 as item_index,
        trim(unnest(items)) as item_text
    from by_polarity

),

final as (

    select
        concat_ws('|', study_review_id, polarity, cast(item_index as varchar)) as review_item_id,
        study_id,
        study_review_id,
        paper_id,
        reviewer_config,
        reviewer_label,
        polarity,
        item_index,
        item_text as text,
        -- the vector store's key (warehouse.vectors): SHA-256 of the text's UTF-8 bytes
        sha256(item_text) as text_sha256,
        -- the event the items were read from (what an incremental build compares); last, where
        -- on_schema_change puts it in a table an older version wrote
        review_event_id
    from unnested
    where item_text is not null and item_text <> ''

)

select * from final
