"""Suite `quality_judge_repeatability`: SDs are >= 0, mean scores are shares, and the review counts nest
(repeated <= scored <= listed)."""

MODEL = "quality_judge_repeatability"
KEY = "judge_repeatability_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "judge_config", "metric", "n_reviews", "n_reviews_scored", "n_reviews_repeated",
           "within_review_sd_mean", "within_review_sd_max", "score_mean", "between_review_sd"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    from expectations import shared

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column=KEY),
        gx.expectations.ExpectColumnValuesToBeUnique(column=KEY),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="study_id"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="judge_config"),
        gx.expectations.ExpectColumnValuesToBeInSet(column="metric", value_set=["doa", "mcs", "ns"]),
        *shared.counts(("n_reviews", "n_reviews_scored", "n_reviews_repeated")),
        shared.at_least("n_reviews", "n_reviews_scored"),
        shared.at_least("n_reviews_scored", "n_reviews_repeated"),
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0)
          for c in ("within_review_sd_mean", "within_review_sd_max", "between_review_sd")],
        # every score is a share (doa, mcs, ns in [0, 1])
        gx.expectations.ExpectColumnValuesToBeBetween(column="score_mean", min_value=0, max_value=1),
    ]
