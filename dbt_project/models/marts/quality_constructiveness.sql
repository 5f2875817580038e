-- One row per (study, judge configuration, review): see int_quality_constructiveness.
-- judge_flag: see macros/flagged_by_judge.sql.
{{ flagged_by_judge(ref('int_quality_constructiveness')) }}
