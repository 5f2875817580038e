"""Expectations every judged-review quality mart shares (quality_depth, _novelty, _flaws,
_constructiveness; not a suite itself): keys, the review's source, repeat counts that nest, shares in
[0, 1], SDs >= 0, and a null score only with a null_reason."""

SOURCES = ["human", "peerlake", "external"]


def judged_review_expectations(key: str, score: str, *, shares=(), sds=()) -> list:
    """`score` is the column whose nullness is_null and null_reason describe."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from expectations import shared

    scored = Column("null_reason").is_null()
    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column=key),
        gx.expectations.ExpectColumnValuesToBeUnique(column=key),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c)
          for c in ("study_id", "review_key", "judge_config", "is_null")],
        gx.expectations.ExpectColumnValuesToBeInSet(column="source", value_set=SOURCES),
        *shared.counts(("n_repeats", "n_repeats_scored")),
        shared.at_least("n_repeats", "n_repeats_scored"),
        # A number has a judgment behind it; a review nobody judged has none.
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_repeats", min_value=1, row_condition=scored),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_repeats", max_value=0, row_condition=Column("null_reason") == "not_judged"),
        # Null only with a reason, and a reason only for a null.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column(score).is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="null_reason", row_condition=Column(score).is_not_null()),
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0, max_value=1) for c in shares],
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0) for c in sds],
    ]
