-- Constructiveness per (study, judge configuration, review, repeat), from the comments of the
-- constructiveness judge. CLC = (actionability + specificity + justification + solution + tone) / 10
-- per comment; MCS = mean CLC; shares of comments with actionability >= 1, solution = 2, CLC >= 0.6.
-- No comments: null with the reason, never 0.
with

judged as (

    select * from {{ ref('int_judged_reviews') }}
    where judge = 'constructiveness'

),

comments as (

    select
        judged_review_id,
        unnest(  -- noqa: AL03
            from_json(
                units,
                '[{"comment_index": "INTEGER", "anchor_found": "BOOLEAN", "actionability": "INTEGER",
                   "specificity": "INTEGER", "justification": "INTEGER", "solution": "INTEGER",
                   "tone": "INTEGER"}]'
            ),
            recursive := true
        )

    from judged
    where null_reason is null

),

rated as (

    select
        judged_review_id,
        actionability,
        solution,
        anchor_found,
        actionability + specificity + justification + solution + tone as clc_points

    from comments

),

per_repeat as (

    select
        judged_review_id,
        count(*) as n_comments,
        avg(clc_points / 10) as mcs,
        avg(cast(actionability >= 1 as double)) as share_actionable,
        avg(cast(solution = 2 as double)) as share_solution,
        -- CLC >= 0.6 compared on the integer sum (>= 6 of 10 points): no rounding at the edge
        avg(cast(clc_points >= 6 as double)) as share_clc_06,
        avg(cast(anchor_found as double)) as share_anchor_found

    from rated
    group by judged_review_id

),

final as (

    select
        judged.* exclude (units, inputs, null_reason),  -- noqa: RF02
        per_repeat.* exclude (judged_review_id),
        case
            when judged.null_reason is not null then judged.null_reason
            when per_repeat.n_comments is null then 'no_comments'
        end as null_reason

    from judged
    left join per_repeat using (judged_review_id)

)

select * from final
