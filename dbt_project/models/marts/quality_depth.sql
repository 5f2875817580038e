-- One row per (study, judge configuration, review): see int_quality_depth.
select * from {{ ref('int_quality_depth') }}
