"""Suite `distribution_estimation`: every estimate lies inside its own bootstrap interval, direct
sampling risks are non-negative and shrink as reviews are added, AUCs are probabilities."""

MODEL = "reliability_distribution_estimation"
KEY = "distribution_estimation_id"
STAGE = "statistics"
COLUMNS = ["distribution_estimation_id", "probe_config", "review_config", "method", "n_papers", "risk",
           "risk_ci_low", "risk_ci_high", "acceptance_auc"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    direct = Column("method").is_in(["direct_1", "direct_2", "direct_3", "direct_5"])
    return [
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(column_A="risk", column_B="risk_ci_low", or_equal=True),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="risk_ci_high", column_B="risk", or_equal=True),
        # (1 − ‖p‖²)/n with ‖p‖² a collision rate in [0, 1]: never negative, at most 1
        gx.expectations.ExpectColumnValuesToBeBetween(column="risk", min_value=0, max_value=1, row_condition=direct),
    ]
