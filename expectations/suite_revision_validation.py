"""Suite `revision_validation`: one row per (study, condition); ok + blocked = papers, a blocked paper always
has its reason counted, and edited blocks never exceed the candidates."""

MODEL = "revision_validation"
KEY = "revision_validation_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_ok", "n_blocked", "n_papers_failing_checks", "n_candidates", "n_edited_blocks",
          "n_image_entries", "n_images_rehashed", "n_reasons_truncated")
COLUMNS = [KEY, "study_id", "condition", "blocked_reasons", *COUNTS]


def derive(frame):
    frame["status_gap"] = frame["n_ok"] + frame["n_blocked"] - frame["n_papers"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="status_gap", min_value=0, max_value=0),
        at_least("n_candidates", "n_edited_blocks"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="blocked_reasons", row_condition=Column("n_blocked") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(column="blocked_reasons", row_condition=Column("n_blocked") == 0),
    ]
