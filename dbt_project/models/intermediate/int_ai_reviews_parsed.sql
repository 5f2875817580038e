-- One row per successful review request: the model's JSON answer parsed into typed fields.
-- A response that does not meet the review schema is kept with is_parsed = false and a
-- parse_error, so parse failures count against a reviewer instead of silently disappearing.
-- Incremental: a build parses only the request keys that have an event the table has not seen
-- (new answers, or a second answer to an old key), and replaces those keys' rows; a key's row
-- depends on that key's events alone, so the table equals a full build. A change to this code or
-- to a model upstream of it rebuilds it whole (macros/incremental_version.sql).
{{ config(
    materialized='incremental',
    unique_key='request_key',
    incremental_strategy='delete+insert',
    on_schema_change='sync_all_columns',
    pre_hook=["{{ clear_unless_written_by_this_code() }}"],
    post_hook=["{{ record_code_version() }}"]
) }}

with

llm_calls as (

    select * from {{ ref('stg_events__llm_calls') }}

),

answers as (

    select *
    from llm_calls
    where purpose = 'review' and is_ok and is_duplicate_success is not true

),

{% if written_by_this_code() %}
changed_keys as (

    select distinct request_key
    from answers
    where llm_call_id not in (select seen.llm_call_id from {{ this }} as seen)

),

{% endif %}
review_calls as (

    select *
    from answers
    {% if written_by_this_code() %}
        where request_key in (select changed_keys.request_key from changed_keys)
    {% endif %}
    -- Replays write no event, so a second ok event for one request_key is a producer bug;
    -- the first answer is the one every replay returned.
    qualify row_number() over (
        partition by request_key order by occurred_at, llm_call_id
    ) = 1

),

located as (

    select
        *,
        -- JSON forbids raw line breaks and tabs inside strings, but small local models write them
        -- (llama.cpp's grammar lets them through); read them as spaces. The event keeps the exact text.
        nullif(trim(regexp_replace(response_text, '[\n\r\t]', ' ', 'g')), '') as response_trimmed,
        -- Small local models wrap JSON in prose or ``` fences; take the outermost {...} then.
        regexp_extract(
            regexp_replace(response_text, '[\n\r\t]', ' ', 'g'), '\{.*\}'
        ) as response_braced

    from review_calls

),

documents as (

    select
        *,
        case
            when json_valid(response_trimmed) then response_trimmed::json
            when json_valid(response_braced) then response_braced::json
        end as response_json,
        not coalesce(json_valid(response_trimmed), false)
        and coalesce(json_valid(response_braced), false) as is_json_extracted

    from located

),

fields as (

    select
        *,
        json_type(response_json) as response_json_type,
        json_extract_string(response_json, '$.overall_score') as overall_score_text,
        json_extract_string(response_json, '$.confidence') as confidence_text,
        try_cast(json_extract_string(response_json, '$.overall_score') as double)
            as overall_score_value,
        try_cast(json_extract_string(response_json, '$.confidence') as double)
            as confidence_value,
        json_extract_string(response_json, '$.summary') as summary,
        json_extract_string(response_json, '$.rationale') as rationale,
        case json_type(response_json, '$.strengths')
            when 'ARRAY' then json_extract_string(response_json, '$.strengths[*]')
            when 'VARCHAR' then [json_extract_string(response_json, '$.strengths')]
        end as strengths,
        case json_type(response_json, '$.concerns')
            when 'ARRAY' then json_extract_string(response_json, '$.concerns[*]')
            when 'VARCHAR' then [json_extract_string(response_json, '$.concerns')]
        end as concerns

    from documents

),

checked as (

    select
        *,
        case
            when response_trimmed is null then 'empty_response'
            when response_json is null and finish_reason in ('length', 'max_tokens')
                then 'truncated_invalid_json'
            when response_json is null then 'invalid_json'
            when response_json_type <> 'OBJECT' then 'not_a_json_object'
            when overall_score_text is null then 'missing_overall_score'
            when overall_score_value is null then 'overall_score_not_numeric'
            when overall_score_value not between 1 and 10 then 'overall_score_out_of_range'
            -- The forced-decimal protocol (reliability §5) requires a non-zero fractional part.
            when
                prompt_template = 'reviewer_scoring_decimal'
                and overall_score_value = floor(overall_score_value)
                then 'decimal_score_not_fractional'
            -- The integer protocol asks for a whole number: 6.5 is a broken answer, not a score
            -- (it used to be accepted and later truncated to 6).
            when
                coalesce(prompt_template, '') <> 'reviewer_scoring_decimal'
                and overall_score_value <> floor(overall_score_value)
                then 'integer_score_not_integer'
            when confidence_text is null then 'missing_confidence'
            when confidence_value is null then 'confidence_not_numeric'
            when confidence_value not between 1 and 5 then 'confidence_out_of_range'
        end as parse_error

    from fields

),

final as (

    select
        llm_call_id,
        request_key,
        subject_id as paper_id,
        reviewer_config,
        prompt_template,
        prompt_hash,
        provider,
        model,
        sample_index,
        occurred_at,
        finish_reason,
        response_sha256,
        parse_error is null as is_parsed,
        parse_error,
        is_json_extracted,
        -- Out-of-range values stay visible here for debugging but never reach a score column.
        overall_score_value as overall_score_raw,
        case when parse_error is null then overall_score_value end as overall_score,
        case when parse_error is null then confidence_value end as confidence,
        summary,
        strengths,
        concerns,
        rationale

    from checked

)

select * from final
