"""Suite `contradiction_detection`: one row per study × judge config × reviewer config × item set × k × distance;
accuracy and its Wilson bounds proportions with lo ≤ accuracy ≤ hi, measured items within the items, and a
reason named wherever accuracy is null (never 0 for "not measured")."""

MODEL = "contradiction_detection"
KEY = "contradiction_detection_id"
STAGE = "statistics"
COUNTS = ("k", "n_items", "n_items_measured", "n_items_undecided")
COLUMNS = [KEY, "study_id", "judge_config", "reviewer_config", "item_set", "distance", "accuracy", "wilson_lo",
           "wilson_hi", "null_reason", *COUNTS]


def derive(frame):
    """Items neither measured nor undecided (must be none)."""
    frame["n_items_unaccounted"] = frame["n_items"] - frame["n_items_measured"] - frame["n_items_undecided"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_items_unaccounted", min_value=0, max_value=0),
        at_least("accuracy", "wilson_lo", ignore_missing=True),
        at_least("wilson_hi", "accuracy", ignore_missing=True),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column("accuracy").is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="accuracy", row_condition=Column("n_items_measured") == 0),
    ]
