"""Suite `rank_reproducibility`: same / tie / reverse shares per k are a partition of 100%."""

MODEL = "reliability_rank_reproducibility"
KEY = "rank_reproducibility_id"
STAGE = "statistics"
COLUMNS = ["rank_reproducibility_id", "reviewer_config", "k", "n_comparisons", "pct_same",
           "pct_tie", "pct_reverse", "pct_total"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.shared import share_expectations

    return share_expectations()
