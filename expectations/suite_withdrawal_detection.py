"""Suite `withdrawal_detection`: one row per study × reviewer configuration × withdrawal judge configuration ×
level (exact | similar); counts ≥ 0 and consistent (matched ≤ decided ≤ papers × repeats, reviewed ≤ papers);
accuracies in [0, 1] and equal to their counts' ratios; an accuracy that is null always has its reason, and one
that is not never has one; never 0 for "not judged"."""

MODEL = "withdrawal_detection"
KEY = "withdrawal_detection_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_papers_reviewed", "n_reviews", "n_repeats", "n_paper_repeats_decided",
          "n_paper_repeats_matched", "n_null_judgments", "n_reviews_not_judged")
COLUMNS = [KEY, "study_id", "source", "reviewer_config", "judge_config", "match_level", "matched_count", "accuracy",
           "accuracy_of_all", "accuracy_null_reason", *COUNTS]


def derive(frame):
    """The capacity (papers × repeats) and how far each accuracy is from its counts' ratio (0 when it agrees)."""
    frame["n_paper_repeats"] = frame["n_papers"] * frame["n_repeats"]
    decided = frame["n_paper_repeats_decided"].where(frame["n_paper_repeats_decided"] > 0)
    frame["accuracy_error"] = (frame["accuracy"] - frame["n_paper_repeats_matched"] / decided).abs()
    frame["accuracy_of_all_error"] = (frame["accuracy_of_all"]
                                      - frame["n_paper_repeats_matched"] / frame["n_paper_repeats"]).abs()
    frame["has_accuracy"] = frame["accuracy"].notna()
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(
            column_list=["study_id", "source", "reviewer_config", "judge_config", "match_level"]),
        at_least("n_papers", "n_papers_reviewed"),
        at_least("n_paper_repeats", "n_paper_repeats_decided"),
        at_least("n_paper_repeats_decided", "n_paper_repeats_matched"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="accuracy_error", min_value=0, max_value=1e-9),
        gx.expectations.ExpectColumnValuesToBeBetween(column="accuracy_of_all_error", min_value=0, max_value=1e-9),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="accuracy_null_reason", row_condition=Column("has_accuracy") == False),  # noqa: E712
        gx.expectations.ExpectColumnValuesToBeNull(
            column="accuracy_null_reason", row_condition=Column("has_accuracy") == True),  # noqa: E712
        gx.expectations.ExpectColumnValuesToBeNull(
            column="accuracy", row_condition=Column("n_paper_repeats_decided") == 0),
    ]
