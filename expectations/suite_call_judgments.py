"""Suite `call_judgments`: a null judgment, and only a null one, says why (ok | null is a dbt column check)."""

MODEL = "fct_call_judgments"
KEY = "judgment_id"
STAGE = "statistics"
COLUMNS = [KEY, "judge", "step", "judge_config", "subject_key", "status", "null_reason", "n_calls"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column("status") == "null"),
        gx.expectations.ExpectColumnValuesToBeNull(column="null_reason", row_condition=Column("status") == "ok"),
    ]
