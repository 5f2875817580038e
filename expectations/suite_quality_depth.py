"""Suite `quality_depth`: DoA, R and S are shares; a null DoA has a reason; the unit counts nest
(grounded premises <= premises <= units); what the cap cut is a count. (The aspect shares, keyed by the
depth taxonomy's labels, are quality_depth_aspects.)"""

MODEL = "quality_depth"
KEY = "quality_depth_id"
STAGE = "statistics"
SHARES = ("doa", "premise_ratio", "grounding_norm")
COLUMNS = [KEY, "study_id", "review_key", "judge_config", "source", "is_null", "null_reason", "n_repeats",
           "n_repeats_scored", "n_units", "n_premises", "n_premises_grounded", "doa_sd", "n_units_cut_by_cap", *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations import shared
    from peerlake.expectations.quality_reviews import judged_review_expectations

    return [
        *judged_review_expectations("doa"),
        # A scored review has units (no units is null, never DoA 0).
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_units", min_value=1, row_condition=Column("doa").is_not_null()),
        shared.at_least("n_units", "n_premises", ignore_missing=True),
        shared.at_least("n_premises", "n_premises_grounded", ignore_missing=True),
        # a scored review says what the cap cut (0 when nothing), so its units can be read beside it
        gx.expectations.ExpectColumnValuesToNotBeNull(column="n_units_cut_by_cap",
                                                      row_condition=Column("doa").is_not_null()),
    ]
