"""Expectations every judged-review quality mart shares (quality_depth, _novelty, _flaws,
_constructiveness; not a suite itself): repeat counts that nest and a null score only with a null_reason.
Their keys, sources, shares in [0, 1] and SDs >= 0 are dbt tests in the marts' yml."""


def judged_review_expectations(score: str) -> list:
    """`score` is the column whose nullness is_null and null_reason describe."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations import shared

    scored = Column("null_reason").is_null()
    return [
        shared.at_least("n_repeats", "n_repeats_scored"),
        # A number has a judgment behind it; a review nobody judged has none.
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_repeats", min_value=1, row_condition=scored),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_repeats", max_value=0, row_condition=Column("null_reason") == "not_judged"),
        # Null only with a reason, and a reason only for a null.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column(score).is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="null_reason", row_condition=Column(score).is_not_null()),
    ]
