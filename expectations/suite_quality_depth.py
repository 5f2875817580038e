"""Suite `quality_depth`: DoA, R, S and the aspect shares are shares; a null DoA has a reason; the unit
counts nest (claims + premises = units, grounded premises <= premises)."""

MODEL = "quality_depth"
KEY = "quality_depth_id"
STAGE = "statistics"
ASPECTS = ("soundness", "clarity", "contribution", "other")
SHARES = ("doa", "premise_ratio", "grounding_norm", *(f"share_units_{a}" for a in ASPECTS),
          *(f"share_premises_{a}" for a in ASPECTS))
COLUMNS = [KEY, "study_id", "review_key", "judge_config", "source", "is_null", "null_reason", "n_repeats",
           "n_repeats_scored", "n_units", "n_premises", "n_premises_grounded", "doa_sd", *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from expectations import shared
    from expectations.quality_reviews import judged_review_expectations

    return [
        *judged_review_expectations(KEY, "doa", shares=SHARES, sds=("doa_sd",)),
        # A scored review has units (no units is null, never DoA 0).
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_units", min_value=1, row_condition=Column("doa").is_not_null()),
        shared.at_least("n_units", "n_premises", ignore_missing=True),
        shared.at_least("n_premises", "n_premises_grounded", ignore_missing=True),
    ]
