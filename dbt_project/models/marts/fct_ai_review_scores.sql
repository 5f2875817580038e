-- One row per (paper, reviewer configuration, sample): the score an AI reviewer gave, parsed or
-- flagged, with the llm_call event it came from.
with

parsed_reviews as (

    select * from {{ ref('int_ai_reviews_parsed') }}

),

latest_per_slot as (

    -- A re-ingested paper gets new requests for the same (config, sample) slot; its newest
    -- answer is the one about the current version of the paper.
    select *
    from parsed_reviews
    qualify row_number() over (
        partition by paper_id, reviewer_config, sample_index
        order by occurred_at desc, llm_call_id desc
    ) = 1

),

final as (

    select
        md5(concat_ws(
            '|', coalesce(paper_id, ''), reviewer_config, cast(sample_index as varchar)
        )) as review_score_id,
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
        'peerlake' as source

    from latest_per_slot

)

select * from final
