"""Suite `system_review_costs`: one row per study and system review, counts ≥ 0, a cost that is known or null and
flagged (never a 0 standing for "unknown"), the critical path no longer than the model time, a score on 1–10
only where the review is ok and the system gives scores."""

MODEL = "system_review_costs"
KEY = "system_review_cost_id"
STAGE = "statistics"
COUNTS = ("n_calls", "n_calls_missing", "n_error_attempts", "n_calls_unpriced", "n_calls_made_by_study")
COLUMNS = [KEY, "study_id", "system_name", "system_config", "paper_id", "sample_index", "status", "is_scored",
           "overall_score", *COUNTS, "input_tokens", "output_tokens", "cost_usd", "is_cost_complete",
           "model_seconds", "wall_seconds"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_calls", "n_calls_unpriced"),
        at_least("n_calls", "n_calls_made_by_study"),
        # parallel members make the wall time shorter than the summed model time, never longer
        at_least("model_seconds", "wall_seconds", ignore_missing=True),
        # a cost is whole or null: an unpriced call never turns into a smaller total
        gx.expectations.ExpectColumnValuesToBeNull(column="cost_usd", row_condition=Column("n_calls_unpriced") > 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="cost_usd", row_condition=Column("n_calls_unpriced") == 0),
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[True], row_condition=Column("n_calls_unpriced") == 0),
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[False], row_condition=Column("n_calls_unpriced") > 0),
        # a null review has no score, and a system without a scale gives none (null, never 0)
        gx.expectations.ExpectColumnValuesToBeNull(column="overall_score", row_condition=Column("status") == "null"),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="overall_score", row_condition=Column("is_scored") == False),  # noqa: E712
    ]
