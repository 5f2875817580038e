"""Suite `hidden_text_detector`: one row per study and method; counts ≥ 0 and consistent (detected ≤ in the
package ≤ variants); rates in [0, 1]; recall null exactly when no injected text reached a package."""

MODEL = "hidden_text_detector"
KEY = "hidden_text_detector_id"
STAGE = "statistics"
COUNTS = ("n_variants", "n_in_package", "n_not_in_package", "n_detected", "n_other_records_flagged",
          "n_clean_papers", "n_clean_unchecked", "n_false_alarm_papers", "n_false_alarm_records")
RATES = ("recall", "precision", "false_alarm_rate")
COLUMNS = [KEY, "study_id", "method", "recall_null_reason", "precision_null_reason", *COUNTS, *RATES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_variants", "n_in_package"),
        at_least("n_in_package", "n_detected"),
        at_least("n_clean_papers", "n_false_alarm_papers"),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="recall_null_reason", row_condition=Column("n_in_package") == 0),
    ]
