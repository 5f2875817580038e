-- One row per (paper, system configuration, sample): the newest system_review, its normalized
-- fields typed, and whether its score is usable. A score off its declared scale is flagged as
-- int_ai_reviews_parsed flags one (overall_score_raw keeps it); a system that declares no scale
-- (llm-review) gives no score and that is not an error (is_scored = false); a null review carries
-- parse_error 'system_null:<its reason>'.
with

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

score_scales as (

    -- the scales the systems declare: dbt_project.yml's score_scales, which reviewing.systems.normalized
    -- reads too. The score marts take 1-10 scores.
    select
        scales.score_scale,
        scales.scale_min,
        scales.scale_max
    from (
        values
        {%- for name, scale in var('score_scales').items() %}
            ('{{ name }}', {{ scale.min }}, {{ scale.max }}){{ "," if not loop.last }}
        {%- endfor %}
    ) as scales (score_scale, scale_min, scale_max)

),

latest as (

    -- A re-ingested paper gets new requests, so a new chain and a new review for the same slot:
    -- the newest is about the current version of the paper.
    select *
    from system_reviews
    qualify row_number() over (
        partition by paper_id, system_config, sample_index
        order by recorded_at desc, system_review_id desc
    ) = 1

),

fields as (

    select
        latest.*,
        score_scales.scale_min,
        score_scales.scale_max,
        latest.review ->> '$.summary' as summary,
        -- a list field a system wrote as one string is one item, as reviewing.systems.normalized.as_list
        -- would have split it already; anything else (null, {}) is no item
        case json_type(latest.review, '$.strengths')
            when 'ARRAY' then json_extract_string(latest.review, '$.strengths[*]')
            when 'VARCHAR' then [json_extract_string(latest.review, '$.strengths')]
            else cast([] as varchar[])
        end as strengths,
        case json_type(latest.review, '$.weaknesses')
            when 'ARRAY' then json_extract_string(latest.review, '$.weaknesses[*]')
            when 'VARCHAR' then [json_extract_string(latest.review, '$.weaknesses')]
            else cast([] as varchar[])
        end as weaknesses,
        case json_type(latest.review, '$.questions')
            when 'ARRAY' then json_extract_string(latest.review, '$.questions[*]')
            when 'VARCHAR' then [json_extract_string(latest.review, '$.questions')]
            else cast([] as varchar[])
        end as questions,
        latest.review ->> '$.recommendation' as recommendation,
        latest.review -> '$.sub_scores' as sub_scores,
        cast(json_array_length(latest.calls) as integer) as n_calls

    from latest
    left join score_scales using (score_scale)

),

checked as (

    select
        *,
        score_scale is not null as is_scored,
        case
            when status != 'ok' then 'system_null:' || coalesce(null_reason, 'no reason given')
            -- no declared scale: the system gives no score, which is not a parse failure
            when score_scale is null then null
            when scale_min is null then 'unknown_score_scale'
            when score is null then 'missing_overall_score'
            when score not between scale_min and scale_max then 'overall_score_out_of_range'
            when confidence is not null and confidence not between 1 and 5 then 'confidence_out_of_range'
        end as parse_error

    from fields

),

final as (

    select
        system_review_id,
        review_key,
        recorded_at,
        system_name,
        system_config,
        system_version,
        paper_id,
        package_sha256,
        sample_index,
        provider,
        model,
        status,
        null_reason,
        is_ok,
        is_scored,
        parse_error is null as is_parsed,
        parse_error,
        score_scale,
        -- what the system answered even off its scale; the gate on the score marts watches it
        score as overall_score_raw,
        case when parse_error is null then score end as overall_score,
        case when parse_error is null then confidence end as confidence,
        summary,
        strengths,
        weaknesses,
        questions,
        recommendation,
        sub_scores,
        n_calls,
        calls,
        options,
        recorded_for_study

    from checked

)

select * from final
