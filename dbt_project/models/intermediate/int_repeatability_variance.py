"""Per (study, reviewer configuration): within-paper variance V̂, SD sqrt(V̂) and the number of
disjoint score pairs M the certified budget may use (N·⌊n_min/2⌋; see metrics.stats.budgets).
The one implementation of these statistics lives in metrics.stats (tested with pytest); recomputed
only for the (study, configuration) keys whose scores changed (metrics.stats.memo, hashed in DuckDB)."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation
    from peerlake.metrics.stats.repeatability import variance_table

    # hashed per key in DuckDB: only the changed keys' scores are read into pandas (a study added beside
    # an unchanged one at 1 M reviews reads that study's scores, not the million)
    scores = dbt.ref("int_study_review_scores").filter("is_parsed").project(", ".join(SCORE_COLUMNS))
    return recompute_changed_relation(scores, ["study_id", "reviewer_config"], variance_table,
                                      previous_table(session, dbt.this), session=session)
