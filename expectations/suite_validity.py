"""Suite `validity`: correlations are correlations, errors and AUCs are in range, and the counts
behind each statistic nest (accepted ⊆ labeled, not-withdrawn ⊆ labeled)."""

MODEL = "reliability_validity"
KEY = "validity_id"
STAGE = "statistics"
COLUMNS = ["validity_id", "reviewer_config", "scope", "n_papers", "pearson", "spearman", "mae", "rmse",
           "n_papers_labeled", "n_accepted", "acceptance_auc", "n_papers_labeled_not_withdrawn",
           "acceptance_auc_excluding_withdrawn"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    # Null statistics are allowed (no human scores or labels yet); present ones must be in range.
    return [
        gx.expectations.ExpectColumnValuesToMatchRegex(column="scope", regex=r"^(?:all|venue_year:.+)$"),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="n_papers_labeled", column_B="n_accepted", or_equal=True),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="n_papers_labeled", column_B="n_papers_labeled_not_withdrawn", or_equal=True),
    ]
