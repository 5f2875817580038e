"""Suite `quality_sources`: a source's metric has at most as many values as the source has judged reviews,
a mean exactly when it has a value, and one row per (study, source, judge, metric)."""

MODEL = "quality_sources"
KEY = "quality_source_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "reviewed_by", "source", "judge", "metric", "n_reviews_judged", "n_values",
           "mean_value"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [at_least("n_reviews_judged", "n_values"),
            gx.expectations.ExpectColumnValuesToBeNull(column="mean_value", row_condition=Column("n_values") == 0),
            gx.expectations.ExpectColumnValuesToNotBeNull(column="mean_value", row_condition=Column("n_values") > 0),
            gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "reviewed_by", "judge", "metric"])]
