-- One row per paper version with venue, status, human mean rating and layout counts
-- (see int_papers_described).
select * from {{ ref('int_papers_described') }}
