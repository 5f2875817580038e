"""Suite `budgets`: review budgets are positive whole numbers and the certified one is never below
the planning one (U ≥ V̂) — except where V̂ exceeds (b − a)²/4, the largest variance any distribution on
the scale can have (Popoviciu): a pilot of few scores can estimate more than that (scores 1 and 10 give
V̂ = 40.5), and then U, a bound on the true V, is the cap itself and rightly lies below V̂."""

MODEL = "reliability_budgets"
KEY = "budget_id"
STAGE = "statistics"
COLUMNS = ["budget_id", "reviewer_config", "tolerance", "variance_hat", "variance_upper",
           "planning_budget", "certified_budget", "range_only_budget", "scale_min", "scale_max"]
BUDGETS = ("planning_budget", "certified_budget", "range_only_budget")


def derive(frame):
    """The variance cap (b − a)²/4, V̂ held to it, and whether V̂ is above it."""
    frame["variance_cap"] = (frame["scale_max"] - frame["scale_min"]) ** 2 / 4
    frame["variance_hat_capped"] = frame[["variance_hat", "variance_cap"]].min(axis=1)
    frame["is_variance_hat_within_cap"] = frame["variance_hat"] <= frame["variance_cap"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    within_cap = Column("is_variance_hat_within_cap") == True  # noqa: E712 - a GX condition
    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="tolerance", min_value=0,
                                                      strict_min=True),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="variance_upper", column_B="variance_hat_capped", or_equal=True),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="variance_cap", column_B="variance_upper", or_equal=True),
        *[gx.expectations.ExpectColumnValuesToBeInTypeList(
            column=col, type_list=["int", "int8", "int16", "int32", "int64", "Int64"]) for col in BUDGETS],
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="certified_budget", column_B="planning_budget", or_equal=True,
            row_condition=within_cap),
    ]
