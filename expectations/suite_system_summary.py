"""Suite `system_summary`: one row per study and system configuration, every review ok or null, counts and costs
≥ 0, a total cost that is null (not smaller) when a review's cost is unknown, scores on 1–10 only for a system that
gives them, and a reason named wherever reviews came back null."""

MODEL = "system_summary"
KEY = "system_summary_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_reviews", "n_ok_reviews", "n_null_reviews", "n_top_null_reason", "n_reviews_cost_unknown",
          "n_scored_reviews", "n_calls", "n_calls_made_by_study")
NON_NEGATIVE = ("calls_per_review_mean", "error_attempts_per_review_mean", "input_tokens_per_review_mean",
                "output_tokens_per_review_mean", "cost_total_usd", "cost_per_review_mean_usd",
                "cost_per_paper_mean_usd", "model_seconds_per_review_mean", "wall_seconds_per_review_mean", "score_sd",
                "within_paper_sd", "reference_cost_per_review_usd")
COLUMNS = [KEY, "study_id", "system_name", "system_config", "is_scored", "top_null_reason", "score_mean",
           *COUNTS, *NON_NEGATIVE]


def derive(frame):
    """Reviews neither ok nor null."""
    frame["n_reviews_unaccounted"] = frame["n_reviews"] - frame["n_ok_reviews"] - frame["n_null_reviews"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "system_config"]),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_reviews_unaccounted", min_value=0, max_value=0),
        at_least("n_reviews", "n_papers"),
        at_least("n_ok_reviews", "n_scored_reviews"),
        at_least("n_null_reviews", "n_top_null_reason"),
        at_least("n_calls", "n_calls_made_by_study"),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="cost_total_usd", row_condition=Column("n_reviews_cost_unknown") > 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="top_null_reason", row_condition=Column("n_null_reviews") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="score_mean", row_condition=Column("is_scored") == False),  # noqa: E712
        gx.expectations.ExpectColumnValuesToBeNull(
            column="within_paper_sd", row_condition=Column("is_scored") == False),  # noqa: E712
    ]
