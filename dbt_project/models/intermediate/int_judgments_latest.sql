-- The newest judgment per (judge, step, judge configuration, subject, repeat): a judge re-run under a
-- new parser version records a new event for the same slot, and the newest answer is the one counted.
with

judgments as (

    select * from {{ ref('stg_events__judgments') }}

),

final as (

    select *
    from judgments
    qualify row_number() over (
        partition by judge, step, judge_config, subject_key, repeat_index
        order by recorded_at desc, judgment_id desc
    ) = 1

)

select * from final
