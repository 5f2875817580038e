"""Per (reviewer configuration, k): same / tie / reverse counts over every paper pair within a
venue-year and every partition of the n rounds into two k-blocks (exact enumeration). Recomputed
only for the (study, configuration) keys whose scores or venue-years changed (metrics.stats.memo):
the scores are hashed per key in DuckDB, and only the changed keys' scores are read."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation
    from peerlake.metrics.stats.ranking import rank_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").project(", ".join(SCORE_COLUMNS))
    context = dbt.ref("int_paper_context").df()
    inputs = scores.join(dbt.ref("int_paper_context").project("paper_id, venue_year"), "paper_id", how="left")
    return recompute_changed_relation(inputs, ["study_id", "reviewer_config"],
                                      lambda part: rank_table(part[SCORE_COLUMNS], context),
                                      previous_table(session, dbt.this), session=session)
