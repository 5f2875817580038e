"""Suite `score_histogram`: per histogram (study and configuration) exactly the ten bins 1..10,
counts ≥ 0, and shares that are the counts over their total (so they sum to 1)."""

MODEL = "reliability_score_histogram"
KEY = "score_histogram_id"
STAGE = "statistics"
COLUMNS = ["score_histogram_id", "reviewer_config", "score_bin", "n_scores", "share_of_scores"]
# Shares are doubles; a share and its count's fraction, or a histogram's shares' sum, agree
# within this much.
TOLERANCE = 1e-9


def derive(frame):
    """Per-histogram facts that row-wise expectations can check: bins, share total, deviation."""
    # The key is <histogram>|<bin>, so what precedes the last "|" names the histogram, whatever
    # columns (study, configuration) make it up.
    frame["histogram"] = frame[KEY].astype("string").str.rsplit("|", n=1).str[0]
    by_histogram = frame.groupby("histogram", dropna=False)
    frame["histogram_n_bins"] = by_histogram["score_bin"].transform("size")
    frame["histogram_share_total"] = by_histogram["share_of_scores"].transform("sum")
    fraction = frame["n_scores"] / by_histogram["n_scores"].transform("sum")
    frame["share_deviation"] = (frame["share_of_scores"] - fraction).abs()
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["histogram", "score_bin"]),
        gx.expectations.ExpectColumnValuesToBeBetween(column="histogram_n_bins", min_value=10, max_value=10),
        # A histogram exists only for a configuration with parsed scores, so its shares sum to 1.
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="histogram_share_total", min_value=1 - TOLERANCE, max_value=1 + TOLERANCE),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_deviation", max_value=TOLERANCE),
    ]
