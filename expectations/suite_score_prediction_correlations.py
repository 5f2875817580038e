"""Suite `score_prediction_correlations`: one row per study × judge config × reviewer × venue-year, counts
that nest (papers in scope ≥ predicted ≥ correlated), correlations in [−1, 1], and every correlation
null exactly when a reason says why (fewer than 3 papers, a constant side), never 0 in its place."""

MODEL = "score_prediction_correlations"
KEY = "score_prediction_correlation_id"
STAGE = "statistics"
COUNTS = ("n_papers_in_scope", "n_papers_predicted", "n_papers_with_human_score", "n_papers")
CORRELATIONS = ("pearson", "spearman", "kendall_tau_b")
COLUMNS = [KEY, "study_id", "judge_config", "source", "reviewer", "venue", "venue_year", "is_reference",
           "null_reason", *COUNTS, *CORRELATIONS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_papers_in_scope", "n_papers_predicted"),
        at_least("n_papers_predicted", "n_papers"),
        at_least("n_papers_with_human_score", "n_papers"),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=Column("null_reason").is_null())
          for c in CORRELATIONS],
        *[gx.expectations.ExpectColumnValuesToBeNull(column=c, row_condition=Column("null_reason").is_not_null())
          for c in CORRELATIONS],
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column("n_papers") < 3),
    ]
