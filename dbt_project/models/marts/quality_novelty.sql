-- One row per (study, judge configuration, review): see int_quality_novelty.
select * from {{ ref('int_quality_novelty') }}
