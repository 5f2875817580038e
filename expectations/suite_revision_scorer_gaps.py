"""Suite `revision_scorer_gaps`: one row per (study, venue_year, expression), a known quantity, an estimate
exactly when some paper is complete in every cell involved, inside its interval."""

MODEL = "revision_scorer_gaps"
KEY = "revision_scorer_gap_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "venue_year", "quantity", "expression", "n_papers", "estimate", "ci_low", "ci_high",
           "n_resamples", "bootstrap_seed"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="estimate", row_condition=Column("n_papers") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(column="estimate", row_condition=Column("n_papers") == 0),
        at_least("estimate", "ci_low", ignore_missing=True),
        at_least("ci_high", "estimate", ignore_missing=True),
    ]
