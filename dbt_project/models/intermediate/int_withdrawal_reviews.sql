-- One row per (study, review of a withdrawn paper the study counts): the study's papers that have a
-- withdrawal note, and their reviews (int_study_reviews: a template reviewer's or system's samples
-- below the study's K; the study's imported systems ('*': all); and the human reviews) as
-- studies.experiments.study_reviews hands them to the judge: the newest review per (paper,
-- source, reviewer configuration, sample). The human reviews are all here: the judge reads them only
-- when the study's [withdrawals] sources include "human", so the mart keeps the human row only where
-- it was judged.
with

study_reviews as (

    select * from {{ ref('int_study_reviews') }}

),

notes as (

    select * from {{ ref('int_withdrawal_notes') }}

),

newest as (

    -- a re-ingested paper is reviewed anew in the same slot: the newest review is the one judged
    select *
    from study_reviews
    qualify row_number() over (
        partition by
            study_id, paper_id, source, reviewer_config, coalesce(cast(sample_index as varchar), review_key)
        order by review_event_id desc
    ) = 1

),

scoped as (

    select
        newest.study_id,
        newest.review_key,
        newest.paper_id,
        newest.source,
        newest.reviewer_config,
        newest.sample_index,
        notes.withdrawal_note_id,
        newest.reviewer_label

    from newest
    inner join notes on newest.paper_id = notes.paper_id

),

final as (

    select
        study_id || '|' || review_key as withdrawal_review_id,
        *

    from scoped

)

select * from final
