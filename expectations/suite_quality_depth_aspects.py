"""Suite `quality_depth_aspects`: one row per (study, depth judge configuration, review, aspect of its
taxonomy); the shares are in [0, 1] and a review's shares over its units sum to 1 (every aspect of the
taxonomy has a row), as do its shares over its premises wherever it has premises."""

MODEL = "quality_depth_aspects"
KEY = "quality_depth_aspect_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "judge_config", "review_key", "source", "depth_taxonomy", "aspect", "aspect_order",
           "n_repeats_scored", "share_units", "share_premises"]
REVIEW = ["study_id", "judge_config", "review_key"]


def derive(frame):
    """Each review's shares summed over its aspects (NaN where every share is null)."""
    for column in ("share_units", "share_premises"):
        frame[f"{column}_sum"] = frame.groupby(REVIEW)[column].transform(lambda s: s.sum(min_count=1))
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx


    one = {"min_value": 1 - 1e-9, "max_value": 1 + 1e-9}
    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_units_sum", **one),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_premises_sum", **one),
    ]
