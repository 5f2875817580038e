-- One row per (study, source, paper, reviewer configuration, sample): the score an AI reviewer gave,
-- parsed or flagged, with the event it came from (see int_study_review_scores).
select * from {{ ref('int_study_review_scores') }}
