"""Suite `revision_noise_adjusted`: one row per (study, quantity, condition, Scorer pair); ρ_adj is null
exactly when a reason says why (it is NOT range-checked: the source paper keeps values outside [−1, 1]), the
invalid-resample counts fit in the resamples, and the observed r is a correlation."""

MODEL = "revision_noise_adjusted"
KEY = "revision_noise_adjusted_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "quantity", "scorer_x", "scorer_y", "n_papers", "r_observed", "rho_adj", "n_resamples",
           "n_undefined", "n_out_of_range", "null_reason", "bootstrap_seed", "n_papers_unchanged", "unchanged_final"]


def derive(frame):
    """Resamples left after the undefined and out-of-range ones (never negative)."""
    frame["n_resamples_in_range"] = frame["n_resamples"] - frame["n_undefined"] - frame["n_out_of_range"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="n_resamples_in_range"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_resamples_in_range", min_value=0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rho_adj", row_condition=Column("null_reason").is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="rho_adj",
                                                   row_condition=Column("null_reason").is_not_null()),
    ]
