"""Expectation shapes several suites use (great_expectations is imported when one is built)."""


def at_least(a: str, b: str, *, ignore_missing: bool = False):
    """Column a ≥ column b on every row (with ignore_missing, rows where either is null are skipped)."""
    import great_expectations as gx

    return gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=a, column_B=b, or_equal=True,
        **({"ignore_row_if": "either_value_is_missing"} if ignore_missing else {}))


def counts(columns) -> list:
    """Each column is a count: never null, never negative."""
    import great_expectations as gx

    return [e for c in columns for e in (gx.expectations.ExpectColumnValuesToNotBeNull(column=c),
                                         gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0))]
