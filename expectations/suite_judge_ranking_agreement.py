"""Suite `judge_ranking_agreement`: each pair of configurations once, in name order; τ-b null exactly when a
reason says why; an interval in order."""

MODEL = "judge_ranking_agreement"
KEY = "judge_ranking_agreement_id"
STAGE = "statistics"
COLUMNS = [KEY, "label_x", "label_y", "kendall_tau_b", "ci_low", "ci_high", "null_reason"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.judge_panel import ordered_pair
    from peerlake.expectations.shared import at_least

    return [ordered_pair("label_x", "label_y"), at_least("ci_high", "ci_low", ignore_missing=True),
            gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason",
                                                          row_condition=Column("kendall_tau_b").is_null())]
