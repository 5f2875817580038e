"""Suite `close_pairs`: per (k, gap bin), same / tie / reverse shares are a partition of 100%."""

MODEL = "reliability_close_pairs"
KEY = "close_pair_id"
STAGE = "statistics"
COLUMNS = ["close_pair_id", "reviewer_config", "k", "gap_bin", "n_comparisons", "pct_same",
           "pct_tie", "pct_reverse", "pct_total"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.shared import share_expectations

    return share_expectations()
