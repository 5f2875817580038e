"""Suite `quality_judge_agreement`: one row per (study, metric, config pair) with the pair in name
order, counts that nest (scored by both ≤ listed by both), shares and correlations in range, and a
correlation null exactly when a reason says why (fewer than 3 reviews, a constant side), never 0."""

MODEL = "quality_judge_agreement"
KEY = "quality_judge_agreement_id"
STAGE = "statistics"
MEANS = ("mean_x", "mean_y", "mean_diff", "mean_abs_diff", "share_equal")
CORRELATIONS = ("pearson", "spearman")
COLUMNS = [KEY, "study_id", "judge", "metric", "judge_config_x", "judge_config_y", "n_reviews_shared", "n_reviews",
           *MEANS, *CORRELATIONS, "correlation_null_reason"]
REASONS = ["fewer_than_3_reviews", "constant_x", "constant_y"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from expectations.shared import at_least, counts

    measured, unmeasured = Column("correlation_null_reason").is_null(), Column("correlation_null_reason").is_not_null()
    return [
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c)
          for c in (KEY, "study_id", "judge", "metric", "judge_config_x", "judge_config_y")],
        gx.expectations.ExpectColumnValuesToBeUnique(column=KEY),
        # one row per unordered pair: x sorts strictly before y
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(column_A="judge_config_y", column_B="judge_config_x"),
        *counts(("n_reviews_shared", "n_reviews")),
        at_least("n_reviews_shared", "n_reviews"),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=Column("n_reviews") >= 1)
          for c in MEANS],
        gx.expectations.ExpectColumnValuesToBeBetween(column="mean_abs_diff", min_value=0),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_equal", min_value=0, max_value=1),
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=-1, max_value=1) for c in CORRELATIONS],
        gx.expectations.ExpectColumnValuesToBeInSet(column="correlation_null_reason", value_set=REASONS),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=measured) for c in CORRELATIONS],
        *[gx.expectations.ExpectColumnValuesToBeNull(column=c, row_condition=unmeasured) for c in CORRELATIONS],
        gx.expectations.ExpectColumnValuesToNotBeNull(column="correlation_null_reason",
                                                      row_condition=Column("n_reviews") < 3),
    ]
