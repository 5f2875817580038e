"""Per (reviewer configuration, k ∈ {1, 2}, gap bin): pairs grouped by the gap of their first-half
means, compared with blocks drawn only from the second half of the rounds. Recomputed only for the
(study, configuration) keys whose scores or venue-years changed (metrics.stats.memo)."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed
    from peerlake.metrics.stats.ranking import close_pair_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").df()[SCORE_COLUMNS]
    context = dbt.ref("int_paper_context").df()
    inputs = scores.merge(context[["paper_id", "venue_year"]], on="paper_id", how="left")
    return recompute_changed(inputs, ["study_id", "reviewer_config"],
                             lambda part: close_pair_table(part[SCORE_COLUMNS], context),
                             previous_table(session, dbt.this), session=session)
