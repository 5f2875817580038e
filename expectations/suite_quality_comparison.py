"""Suite `quality_comparison`: one row per (study, system, metric), p-values are probabilities,
intervals contain their estimates, and a row is skipped (skip_reason) exactly when its statistics are
null — a null p-value without a reason would read as "not significant"."""

MODEL = "quality_comparison"
KEY = "quality_comparison_id"
STAGE = "statistics"
STATISTICS = ("ci_low", "ci_high", "mean_system_ci_low", "mean_system_ci_high", "mean_human_ci_low",
              "mean_human_ci_high", "wilcoxon_p", "holm_p", "cliffs_delta", "cliffs_delta_paired", "magnitude")
COLUMNS = ["quality_comparison_id", "study_id", "system", "metric", "n_pairs", "mean_system", "mean_human",
           "mean_diff", *STATISTICS, "skip_reason", "bootstrap_seed", "n_resamples"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    tested, skipped = Column("skip_reason").is_null(), Column("skip_reason").is_not_null()
    intervals = [("ci_low", "mean_diff", "ci_high"), ("mean_system_ci_low", "mean_system", "mean_system_ci_high"),
                 ("mean_human_ci_low", "mean_human", "mean_human_ci_high")]
    return [
        # Holm only ever raises a p-value.
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="holm_p", column_B="wilcoxon_p", or_equal=True, ignore_row_if="either_value_is_missing"),
        *[e for lo, est, hi in intervals for e in (
            gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
                column_A=est, column_B=lo, or_equal=True, ignore_row_if="either_value_is_missing"),
            gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
                column_A=hi, column_B=est, or_equal=True, ignore_row_if="either_value_is_missing"))],
        # skip_reason set iff the statistics are null; a tested row has at least 10 pairs.
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=tested) for c in STATISTICS],
        *[gx.expectations.ExpectColumnValuesToBeNull(column=c, row_condition=skipped) for c in STATISTICS],
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_pairs", min_value=10, row_condition=tested),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_pairs", max_value=9, row_condition=skipped),
    ]
