-- One row per withdrawal_match judgment (the newest per slot; judging/withdrawal_match.py): the level
-- (its step), the review it read (subject key <paper_id>|<review_key>), the note it read, and its
-- verdict. is_current_note: judged against the paper's newest note (an older note's verdicts do not
-- count once a newer one is imported).
with

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'withdrawal_match'

),

notes as (

    select * from {{ ref('int_withdrawal_notes') }}

),

final as (

    select
        judgments.judgment_id,
        judgments.judge_config,
        judgments.step as match_level,
        judgments.subject_key,
        judgments.paper_id,
        substr(judgments.subject_key, length(judgments.paper_id) + 2) as review_key,
        judgments.repeat_index,
        judgments.status,
        judgments.null_reason,
        judgments.is_ok,
        judgments.inputs ->> '$.withdrawal_note_id' as withdrawal_note_id,
        -- the unit's boolean; null for a null judgment (never false: not judged is not "no match")
        case
            when judgments.is_ok then json_extract_string(judgments.units, '$[0].match') = 'true'
        end as is_match,
        coalesce(judgments.inputs ->> '$.withdrawal_note_id' = notes.withdrawal_note_id, false)
            as is_current_note

    from judgments
    left join notes on judgments.paper_id = notes.paper_id

)

select * from final
