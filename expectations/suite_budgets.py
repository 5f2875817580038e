"""Suite `budgets`: review budgets are positive whole numbers and the certified one is never
below the planning one (U ≥ V̂)."""

MODEL = "reliability_budgets"
KEY = "budget_id"
STAGE = "statistics"
COLUMNS = ["budget_id", "reviewer_config", "tolerance", "variance_hat", "variance_upper",
           "planning_budget", "certified_budget", "range_only_budget"]
BUDGETS = ("planning_budget", "certified_budget", "range_only_budget")


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column=KEY),
        gx.expectations.ExpectColumnValuesToBeUnique(column=KEY),
        gx.expectations.ExpectColumnValuesToBeBetween(column="tolerance", min_value=0,
                                                      strict_min=True),
        gx.expectations.ExpectColumnValuesToBeBetween(column="variance_hat", min_value=0),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="variance_upper", column_B="variance_hat", or_equal=True),
        *[e for col in BUDGETS for e in (
            gx.expectations.ExpectColumnValuesToNotBeNull(column=col),
            gx.expectations.ExpectColumnValuesToBeInTypeList(
                column=col, type_list=["int", "int8", "int16", "int32", "int64", "Int64"]),
            gx.expectations.ExpectColumnValuesToBeBetween(column=col, min_value=1))],
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="certified_budget", column_B="planning_budget", or_equal=True),
    ]
