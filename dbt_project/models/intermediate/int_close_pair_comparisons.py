"""Per (reviewer configuration, k ∈ {1, 2}, gap bin): pairs grouped by the gap of their first-half
means, compared with blocks drawn only from the second half of the rounds. Recomputed only for the
(study, configuration) keys whose scores or venue-years changed (metrics.stats.memo)."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation
    from peerlake.metrics.stats.ranking import close_pair_table

    # hashed per key in DuckDB, as int_rank_comparisons: only the changed keys' scores are read into pandas
    scores = dbt.ref("int_study_review_scores").filter("is_parsed").project(", ".join(SCORE_COLUMNS))
    context = dbt.ref("int_paper_context").df()
    inputs = scores.join(dbt.ref("int_paper_context").project("paper_id, venue_year"), "paper_id", how="left")
    return recompute_changed_relation(inputs, ["study_id", "reviewer_config"],
                                      lambda part: close_pair_table(part[SCORE_COLUMNS], context),
                                      previous_table(session, dbt.this), session=session)
