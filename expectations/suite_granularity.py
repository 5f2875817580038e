"""Suite `granularity`: intervals contain their estimates, rates are rates, and the forced-decimal
protocol was mostly followed (a majority of whole-number answers means the prompt or model broke it)."""

MODEL = "reliability_granularity"
KEY = "granularity_pair_id"
STAGE = "statistics"
COLUMNS = ["granularity_pair_id", "n_papers", "n_decimal_invalid", "decimal_invalid_rate", "mean_shift",
           "mean_shift_ci_low", "mean_shift_ci_high", "within_paper_sd_integer", "within_paper_sd_decimal"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="mean_shift", column_B="mean_shift_ci_low", or_equal=True),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="mean_shift_ci_high", column_B="mean_shift", or_equal=True),
    ]
