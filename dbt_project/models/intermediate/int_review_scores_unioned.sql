-- One row per (source, paper, reviewer configuration, sample), before any study: the score an AI
-- reviewer gave, parsed or flagged, with the event it came from. source 'peerlake' rows come from
-- llm_call events; source 'external' rows are reviews imported from other systems (reviewer_config
-- is the --system name; llm_call_id is null, external_review_imported_id names the event). A
-- reviewer system's review is source 'peerlake' too (reviewer_config = its system config,
-- prompt_template = the system's name, llm_call_id null, system_review_id names the event); a system
-- that declares no score scale (llm-review) gives no score and stays out, and a null system review
-- enters unparsed with parse_error 'system_null:<reason>', counted against the system.
with

peerlake_reviews as (

    select
        *,
        'peerlake' as source,
        cast(null as varchar) as external_review_imported_id,
        cast(null as varchar) as system_review_id
    from {{ ref('int_ai_reviews_parsed') }}

),

system_reviews as (

    select
        system_review_id,
        paper_id,
        system_config as reviewer_config,
        system_name as prompt_template,
        cast(null as varchar) as prompt_hash,
        provider,
        model,
        sample_index,
        recorded_at as occurred_at,
        is_parsed,
        parse_error,
        overall_score_raw,
        overall_score,
        confidence,
        cast(null as varchar) as llm_call_id,
        cast(null as varchar) as request_key,
        'peerlake' as source,
        cast(null as varchar) as external_review_imported_id

    from {{ ref('int_system_reviews') }}
    where is_scored

),

external_reviews as (

    select
        * exclude (external_review_id, body_sha256),
        'external' as source,
        cast(null as varchar) as system_review_id
    from {{ ref('int_external_reviews_scored') }}

),

parsed_reviews as (

    select * from peerlake_reviews
    union all by name
    select * from external_reviews
    union all by name
    select * from system_reviews

),

latest_per_slot as (

    -- A re-ingested paper gets new requests for the same (config, sample) slot; its newest
    -- answer is the one about the current version of the paper.
    select *
    from parsed_reviews
    qualify row_number() over (
        partition by source, paper_id, reviewer_config, sample_index
        order by occurred_at desc, llm_call_id desc, system_review_id desc
    ) = 1

),

final as (

    select
        case
            when source = 'peerlake'
                then md5(concat_ws(
                    '|', coalesce(paper_id, ''), reviewer_config, cast(sample_index as varchar)
                ))
            -- another system may reuse a peerlake config name: its slots must not collide
            else md5(concat_ws(
                '|', source, coalesce(paper_id, ''), reviewer_config, cast(sample_index as varchar)
            ))
        end as review_score_id,
        paper_id,
        reviewer_config,
        prompt_template,
        prompt_hash,
        provider,
        model,
        sample_index,
        overall_score,
        -- what the model answered even when outside the protocol's 1–10; the gate watches it
        overall_score_raw,
        confidence,
        is_parsed,
        parse_error,
        llm_call_id,
        request_key,
        occurred_at,
        source,
        external_review_imported_id,
        system_review_id

    from latest_per_slot

)

select * from final
