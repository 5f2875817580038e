"""Per reviewer configuration: late − early rounds with a paired paper-bootstrap 95% interval
(10,000 resamples, fixed seed). The statistics live in metrics.stats (tested with pytest);
recomputed only for the (study, configuration) keys whose scores changed (metrics.stats.memo, hashed in DuckDB)."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation
    from peerlake.metrics.stats.repeatability import drift_table

    # hashed per key in DuckDB: only the changed keys' scores are read into pandas (a study added beside
    # an unchanged one at 1 M reviews reads that study's scores, not the million)
    scores = dbt.ref("int_study_review_scores").filter("is_parsed").project(", ".join(SCORE_COLUMNS))
    return recompute_changed_relation(scores, ["study_id", "reviewer_config"], drift_table,
                                      previous_table(session, dbt.this), session=session)
