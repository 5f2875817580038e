-- One row per review a judge can read, under the review key judging.reviews gives it:
-- human:<review_id>, peerlake:<request_key>, peerlake:<review_key> (a reviewer system's review),
-- external:<system>:<review_id>. It names the paper and system (for a reviewer system: its system
-- config) of a review no judgment describes yet (not judged) and of the members of a flaws pool.
with

human_reviews as (

    select * from {{ ref('stg_events__human_reviews') }}

),

ai_reviews as (

    select * from {{ ref('int_ai_reviews_parsed') }}

),

external_reviews as (

    select * from {{ ref('stg_events__external_reviews') }}

),

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

human as (

    select
        'human:' || human_review_id as review_key,
        paper_id,
        'human' as source,
        'human' as system,
        cast(null as integer) as sample_index,
        human_review_imported_id as review_event_id

    from human_reviews
    -- a review imported twice is one review; its newest import is the one the judge reads
    qualify row_number() over (
        partition by human_review_id order by imported_at desc, human_review_imported_id desc
    ) = 1

),

peerlake as (

    select
        'peerlake:' || request_key as review_key,
        paper_id,
        'peerlake' as source,
        reviewer_config as system,
        sample_index,
        llm_call_id as review_event_id

    from ai_reviews

),

external as (

    select
        'external:' || system_name || ':' || external_review_id as review_key,
        paper_id,
        'external' as source,
        system_name as system,
        sample_index,
        external_review_imported_id as review_event_id

    from external_reviews
    qualify row_number() over (
        partition by system_name, external_review_id
        order by imported_at desc, external_review_imported_id desc
    ) = 1

),

systems as (

    -- every recorded review, not only the newest per slot: a judgment may describe an older one
    select
        'peerlake:' || review_key as review_key,
        paper_id,
        'peerlake' as source,
        system_config as system,
        sample_index,
        system_review_id as review_event_id

    from system_reviews
    qualify row_number() over (partition by review_key order by recorded_at, system_review_id) = 1

),

final as (

    select * from human
    union all by name
    select * from peerlake
    union all by name
    select * from external
    union all by name
    select * from systems

)

select * from final
