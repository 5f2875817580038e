"""Suite `contradiction_judge_audit`: one row per study × judge config × measure × reviewer config; the rate and
its Wilson bounds proportions with lo ≤ rate ≤ hi, measured subjects within the subjects, and a reason named
wherever the rate is null."""

MODEL = "contradiction_judge_audit"
KEY = "contradiction_judge_audit_id"
STAGE = "statistics"
COUNTS = ("n_subjects", "n_subjects_measured", "n_judgments")
COLUMNS = [KEY, "study_id", "judge_config", "measure", "reviewer_config", "rate", "wilson_lo", "wilson_hi",
           "null_reason", *COUNTS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_subjects", "n_subjects_measured"),
        at_least("n_judgments", "n_subjects_measured"),
        at_least("rate", "wilson_lo", ignore_missing=True),
        at_least("wilson_hi", "rate", ignore_missing=True),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column("rate").is_null()),
    ]
