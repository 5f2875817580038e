-- One row per withdrawn paper: its newest withdrawal note (ingest/withdrawals.py), the one the
-- withdrawal match judge reads. "Newest" is the judge's own rule (judging.withdrawal_match.latest_notes):
-- the greatest event id, ULIDs sorting by time; older notes of the paper are superseded.
with

notes as (

    select * from {{ ref('stg_events__withdrawal_notes') }}

),

final as (

    select
        paper_id,
        withdrawal_note_id,
        note_source,
        source_note_id,
        source_level,
        comment_chars,
        imported_at,
        count(*) over (partition by paper_id) as n_notes

    from notes
    qualify row_number() over (partition by paper_id order by withdrawal_note_id desc) = 1

)

select * from final
