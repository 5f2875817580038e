-- One row per (study, judge configuration, review, pool): see int_quality_flaws.
-- judge_flag: see macros/flagged_by_judge.sql.
{{ flagged_by_judge(ref('int_quality_flaws')) }}
