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


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    measured, unmeasured = Column("correlation_null_reason").is_null(), Column("correlation_null_reason").is_not_null()
    return [
        # one row per unordered pair: x sorts strictly before y
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(column_A="judge_config_y", column_B="judge_config_x"),
        at_least("n_reviews_shared", "n_reviews"),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=Column("n_reviews") >= 1)
          for c in MEANS],
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=measured) for c in CORRELATIONS],
        *[gx.expectations.ExpectColumnValuesToBeNull(column=c, row_condition=unmeasured) for c in CORRELATIONS],
        gx.expectations.ExpectColumnValuesToNotBeNull(column="correlation_null_reason",
                                                      row_condition=Column("n_reviews") < 3),
    ]
