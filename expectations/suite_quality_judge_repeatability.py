"""Suite `quality_judge_repeatability`: SDs are >= 0, mean scores are shares, and the review counts nest
(repeated <= scored <= listed)."""

MODEL = "quality_judge_repeatability"
KEY = "judge_repeatability_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "judge_config", "metric", "n_reviews", "n_reviews_scored", "n_reviews_repeated",
           "within_review_sd_mean", "within_review_sd_max", "score_mean", "between_review_sd"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""

    from peerlake.expectations import shared

    return [
        shared.at_least("n_reviews", "n_reviews_scored"),
        shared.at_least("n_reviews_scored", "n_reviews_repeated"),
    ]
