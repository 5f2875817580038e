"""Suite `revision_gains`: one row per (study, cell, paper); a complete paper has a gain, a direction in
{−1, 0, +1} and a non-negative noise variance, an incomplete one has none of them (a null gain without the
flag would read as a paper that was never scored); an unchanged final under zero_noise has gain and noise 0."""

MODEL = "revision_gains"
KEY = "revision_gain_id"
STAGE = "statistics"
STATISTICS = ("sum_original", "sum_final", "gain", "direction")
COLUMNS = [KEY, "study_id", "cell", "paper_id", "repeats", "n_original_scores", "n_final_scores", "is_complete",
           *STATISTICS, "noise_var_gain", "unchanged_final"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    complete, incomplete = Column("is_complete") == True, Column("is_complete") == False  # noqa: E712
    return [
        at_least("repeats", "n_original_scores"),
        at_least("repeats", "n_final_scores"),
        # zero_noise: the final is the original read by its own scores, so its gain and noise are exactly 0
        *[gx.expectations.ExpectColumnValuesToBeBetween(
            column=c, min_value=0, max_value=0,
            row_condition=(Column("unchanged_final") == "zero_noise") & complete) for c in ("gain", "noise_var_gain")],
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=complete) for c in STATISTICS],
        *[gx.expectations.ExpectColumnValuesToBeNull(column=c, row_condition=incomplete) for c in STATISTICS],
    ]
