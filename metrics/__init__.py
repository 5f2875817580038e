"""The dbt layer's pure functions: the statistics the thin dbt Python models call, each beside the body of
its mart (stats: reliability and the judges' statistics, distribution, quality, revision, text).

Frames and arrays in, frames and numbers out; no lake, no files, no model calls (stats.memo reads only the
table a model replaces, through the dbt session it is handed). What reads the marts lives elsewhere: the
HTML report in report/, the evidence trail in audit/, cost planning in costs/."""
