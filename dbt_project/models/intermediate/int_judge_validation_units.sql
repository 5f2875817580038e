-- One row per depth unit of a validated judgment (int_judge_validation_judgments with units), with its
-- extent in the judged text: the unit's text is the review's own characters from `start` (judging.spans),
-- so it ends at start + length(text).
with

judgments as (

    select * from {{ ref('int_judge_validation_judgments') }}
    where is_judged and null_reason is null

),

unnested as (

    select
        judged_review_id,
        review_key,
        dataset,
        unnest(  -- noqa: AL03
            from_json(units, '[{"unit_index": "INTEGER", "text": "VARCHAR", "start": "INTEGER", "role": "VARCHAR"}]'),
            recursive := true
        )

    from judgments

),

final as (

    select
        concat_ws('|', judged_review_id, unit_index) as validation_unit_id,
        judged_review_id,
        review_key,
        dataset,
        unit_index,
        role as unit_role,
        start as unit_start,
        start + length(text) as unit_end

    from unnested

)

select * from final
