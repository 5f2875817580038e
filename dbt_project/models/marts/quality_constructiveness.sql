-- One row per (study, judge configuration, review): see int_quality_constructiveness.
select * from {{ ref('int_quality_constructiveness') }}
