"""Suite `score_prediction_papers`: one row per study × judge config × reviewer × paper, review counts that
nest, a predicted score null exactly when a reason says why, and acceptance labels 0/1 only."""

MODEL = "score_prediction_papers"
KEY = "score_prediction_paper_id"
STAGE = "statistics"
COUNTS = ("n_reviews", "n_reviews_predicted", "n_human_ratings")
COLUMNS = [KEY, "study_id", "judge_config", "source", "reviewer", "paper_id", "predicted_score", "null_reason",
           "acceptance_label", "is_variant", *COUNTS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(
            column_list=["study_id", "judge_config", "source", "reviewer", "paper_id"]),
        at_least("n_reviews", "n_reviews_predicted"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason",
                                                     row_condition=Column("predicted_score").is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(column="null_reason",
                                                  row_condition=Column("predicted_score").is_not_null()),
    ]
