"""Suite `score_histogram`: per configuration exactly the ten bins 1..10, counts ≥ 0, and shares that
are the counts over their total (so they sum to 1)."""

MODEL = "reliability_score_histogram"
KEY = "score_histogram_id"
STAGE = "statistics"
COLUMNS = ["score_histogram_id", "reviewer_config", "score_bin", "n_scores", "share_of_scores"]
BINS = list(range(1, 11))
# Shares are doubles; a share and its count's fraction, or a configuration's shares' sum, agree
# within this much.
TOLERANCE = 1e-9


def derive(frame):
    """Per-configuration facts that row-wise expectations can check: bins, share total, deviation."""
    by_config = frame.groupby("reviewer_config", dropna=False)
    frame["config_n_bins"] = by_config["score_bin"].transform("size")
    frame["config_share_total"] = by_config["share_of_scores"].transform("sum")
    fraction = frame["n_scores"] / by_config["n_scores"].transform("sum")
    frame["share_deviation"] = (frame["share_of_scores"] - fraction).abs()
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column=KEY),
        gx.expectations.ExpectColumnValuesToBeUnique(column=KEY),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="reviewer_config"),
        gx.expectations.ExpectColumnValuesToBeInSet(column="score_bin", value_set=BINS),
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["reviewer_config", "score_bin"]),
        gx.expectations.ExpectColumnValuesToBeBetween(column="config_n_bins", min_value=10, max_value=10),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="n_scores"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_scores", min_value=0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="share_of_scores"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_of_scores", min_value=0, max_value=1),
        # A configuration is in the histogram only if it has parsed scores, so its shares sum to 1.
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="config_share_total", min_value=1 - TOLERANCE, max_value=1 + TOLERANCE),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_deviation", max_value=TOLERANCE),
    ]
