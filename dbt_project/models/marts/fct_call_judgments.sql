-- One row per judgment_recorded event, every repeat and every re-run (not only the newest), with the
-- llm calls it names (which judgments read which calls), the units the judge extracted, and, when it
-- judged one review, where that review's text is kept (a body blob, the answering llm call, a system
-- review), so the call viewer can show the review as the judge read it with the units highlighted.
with

judgments as (

    select * from {{ ref('stg_events__judgments') }}

),

review_keys as (

    select * from {{ ref('int_judging_review_keys') }}
    qualify row_number() over (partition by review_key order by review_event_id) = 1

),

human_reviews as (

    select * from {{ ref('stg_events__human_reviews') }}

),

external_reviews as (

    select * from {{ ref('stg_events__external_reviews') }}

),

span_annotations as (

    select distinct review_key from {{ ref('stg_events__span_annotations') }}

),

deduplicated as (

    -- copies of one event (same id) are one judgment
    select *
    from judgments
    qualify row_number() over (partition by judgment_id order by recorded_at) = 1

),

bodies as (

    select
        human_review_imported_id as review_event_id,
        body_sha256
    from human_reviews
    union all
    select
        external_review_imported_id as review_event_id,
        body_sha256
    from external_reviews

),

final as (

    select
        deduplicated.judgment_id,
        deduplicated.recorded_at,
        deduplicated.judge,
        deduplicated.step,
        deduplicated.judge_config,
        deduplicated.subject_key,
        deduplicated.paper_id,
        deduplicated.repeat_index,
        deduplicated.status,
        deduplicated.null_reason,
        deduplicated.units,
        -- the llm_call (and retrieval_call) event ids the units came from, in the judge's order
        from_json(deduplicated.llm_call_ids, '["VARCHAR"]') as llm_call_ids,
        coalesce(json_array_length(deduplicated.llm_call_ids), 0) as n_calls,
        deduplicated.recorded_for_study,
        -- the judged review (null when the subject is no review: a paper, a pool): human | peerlake |
        -- external, the event holding it (a human or external import, the answering llm_call, a
        -- system_review) and, for an import, its body blob
        review_keys.source as review_source,
        review_keys.system as review_system,
        review_keys.sample_index as review_sample_index,
        review_keys.review_event_id,
        bodies.body_sha256 as review_body_sha256,
        -- an imported review whose character offsets were annotated is read as one section
        span_annotations.review_key is not null as is_review_annotated

    from deduplicated
    left join review_keys on deduplicated.subject_key = review_keys.review_key
    left join bodies on review_keys.review_event_id = bodies.review_event_id
    left join span_annotations on deduplicated.subject_key = span_annotations.review_key

)

select * from final
