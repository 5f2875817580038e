"""Suite `quality_flaws`: recalls, the hallucination rate and the nCPS variants are shares; a row with
no scored pool has a reason; a single metric is null only for want of its denominator; a review that
mentions no valid flaw has nCPS 0 (PRISM), null only in ncps_null_when_none; counts nest."""

MODEL = "quality_flaws"
KEY = "quality_flaws_id"
STAGE = "statistics"
SHARES = ("recall_critical", "recall_minor", "recall_critical_weighted", "recall_minor_weighted",
          "hallucination_rate", "ncps", "ncps_whole_review", "ncps_null_when_none")
COUNTS = ("n_critical_flaws", "n_minor_flaws", "n_flaws_raised", "n_critical_found", "n_minor_found",
          "n_invalid_raised", "n_mentions", "n_pool_members", "n_flaws_over_cap", "n_raisers_over_cap")
COLUMNS = [KEY, "study_id", "review_key", "judge_config", "source", "pool_key", "pool_system", "pool_sample", "is_null",
           "null_reason", "ncps_null_reason", "n_repeats", "n_repeats_scored", "ncps_sd", *COUNTS, *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations import shared
    from peerlake.expectations.quality_reviews import judged_review_expectations

    scored = Column("null_reason").is_null()

    def present_where(column: str, denominator: str) -> list:
        # On a scored row a metric is null exactly when its denominator is 0.
        return [
            gx.expectations.ExpectColumnValuesToNotBeNull(
                column=column, row_condition=scored & (Column(denominator) > 0)),
            gx.expectations.ExpectColumnValuesToBeNull(column=column, row_condition=Column(denominator) == 0),
        ]

    return [
        # is_null and null_reason are the row's (no repeat has a scored pool for the review): the counts
        # are null exactly then
        *judged_review_expectations("n_critical_flaws"),
        *present_where("recall_critical", "n_critical_flaws"),
        *present_where("recall_minor", "n_minor_flaws"),
        *present_where("recall_critical_weighted", "n_critical_flaws"),
        *present_where("recall_minor_weighted", "n_minor_flaws"),
        *present_where("hallucination_rate", "n_flaws_raised"),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="ncps_null_reason", row_condition=Column("ncps").is_null()),
        # the variants are scored exactly where ncps is; with no mention ncps is 0 and the null variant null
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="ncps_whole_review", row_condition=Column("ncps").is_not_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="ncps_whole_review", row_condition=Column("ncps").is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="ncps_null_when_none", row_condition=Column("n_mentions") == 0),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="ncps", max_value=0, row_condition=Column("n_mentions") == 0),
        # N = the humans + one system review: a scored pool has at least that review
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_pool_members", min_value=1, row_condition=scored),
        shared.at_least("n_critical_flaws", "n_critical_found", ignore_missing=True),
        shared.at_least("n_minor_flaws", "n_minor_found", ignore_missing=True),
        shared.at_least("n_flaws_raised", "n_invalid_raised", ignore_missing=True),
    ]
