-- One row per imported external review (the latest import of each (system, review_id)), shaped
-- like int_ai_reviews_parsed so fct_ai_review_scores can union the two. A score off the
-- protocol's 1–10 scale is kept as overall_score_raw and flagged, as for peerlake's own reviews;
-- confidence is optional for other systems (null is not an error), but off 1–5 it is flagged.
with

external_reviews as (

    select * from {{ ref('stg_events__external_reviews') }}

),

latest as (

    select *
    from external_reviews
    qualify row_number() over (
        partition by system_name, external_review_id order by imported_at desc, external_review_imported_id desc
    ) = 1

),

checked as (

    select
        *,
        case
            when score is null then 'missing_overall_score'
            when score not between 1 and 10 then 'overall_score_out_of_range'
            when confidence is not null and confidence not between 1 and 5 then 'confidence_out_of_range'
        end as parse_error

    from latest

),

final as (

    select
        external_review_imported_id,
        external_review_id,
        paper_id,
        system_name as reviewer_config,
        'external' as provider,
        system_name as model,
        sample_index,
        imported_at as occurred_at,
        parse_error is null as is_parsed,
        parse_error,
        score as overall_score_raw,
        case when parse_error is null then score end as overall_score,
        case when parse_error is null then confidence end as confidence,
        body_sha256

    from checked

)

select * from final
