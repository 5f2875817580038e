"""Suite `judge_panel_agreement`: each pair of configurations once, in name order; the reviews both scored
never exceed the reviews both were given; a correlation null exactly when a reason says why."""

MODEL = "judge_panel_agreement"
KEY = "judge_panel_agreement_id"
STAGE = "statistics"
COLUMNS = [KEY, "label_x", "label_y", "n_reviews_shared", "n_reviews", "pearson", "null_reason"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.judge_panel import ordered_pair
    from peerlake.expectations.shared import at_least

    return [ordered_pair("label_x", "label_y"), at_least("n_reviews_shared", "n_reviews"),
            gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason",
                                                          row_condition=Column("pearson").is_null())]
