"""Suite `judge_configs`: every judge configuration of a study has a name, and the headline tables read
exactly one configuration per (study, judge), so quality_reviews and quality_comparison never average or
mix two judges."""

MODEL = "dim_judge_configs"
KEY = "judge_config_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "judge", "judge_config", "judge_label", "is_primary", "is_headline"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "judge"],
                                                        row_condition=Column("is_headline") == True),  # noqa: E712
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "judge", "judge_label"]),
        gx.expectations.ExpectColumnValuesToBeInSet(column="is_headline", value_set=[True],
                                                    row_condition=Column("is_primary") == True),  # noqa: E712
    ]
