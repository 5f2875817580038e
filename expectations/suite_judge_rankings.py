"""Suite `judge_rankings`: a rank lies within its ranking (1 ≤ rank ≤ n_systems) and each configuration
ranks a system once per metric."""

MODEL = "judge_rankings"
KEY = "judge_ranking_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "judge", "judge_label", "metric", "system", "rank", "n_systems", "mean"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    from peerlake.expectations.shared import at_least

    return [at_least("n_systems", "rank"),
            gx.expectations.ExpectCompoundColumnsToBeUnique(
                column_list=["study_id", "judge", "judge_label", "metric", "system"])]
