"""Suite `quality_constructiveness`: MCS and the comment shares are shares; a null MCS has a reason."""

MODEL = "quality_constructiveness"
KEY = "quality_constructiveness_id"
STAGE = "statistics"
SHARES = ("mcs", "share_actionable", "share_solution", "share_clc_06", "share_anchor_found")
COLUMNS = [KEY, "study_id", "review_key", "judge_config", "source", "is_null", "null_reason", "n_repeats",
           "n_repeats_scored", "n_comments", "mcs_sd", *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.quality_reviews import judged_review_expectations

    return [
        *judged_review_expectations("mcs"),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_comments", min_value=1, row_condition=Column("mcs").is_not_null()),
    ]
