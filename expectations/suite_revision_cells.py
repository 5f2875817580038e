"""Suite `revision_cells`: one row per (study, cell, venue_year), the +/0/− counts add up to the complete
papers, a mean exists exactly when there are papers and lies inside its interval, and the bootstrap
settings are recorded on every row."""

MODEL = "revision_cells"
KEY = "revision_cell_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_papers_dropped_incomplete", "n_papers_blocked", "n_positive", "n_zero", "n_negative",
          "n_papers_unchanged", "n_resamples", "bootstrap_seed")
COLUMNS = [KEY, "study_id", "cell", "venue_year", "mean_gain", "ci_low", "ci_high", "mean_gain_noise_sd", *COUNTS]


def derive(frame):
    """How far the direction counts are from n_papers (0 when they add up)."""
    frame["direction_count_gap"] = (frame["n_positive"] + frame["n_zero"] + frame["n_negative"]
                                    - frame["n_papers"])
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "cell", "venue_year"]),
        gx.expectations.ExpectColumnValuesToBeBetween(column="direction_count_gap", min_value=0, max_value=0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="mean_gain", row_condition=Column("n_papers") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(column="mean_gain", row_condition=Column("n_papers") == 0),
        at_least("mean_gain", "ci_low", ignore_missing=True),
        at_least("ci_high", "mean_gain", ignore_missing=True),
    ]
