-- One row per (study, judge configuration, review, pool): see int_quality_flaws.
select * from {{ ref('int_quality_flaws') }}
