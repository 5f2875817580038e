"""Expectation shapes several suites use (great_expectations is imported when one is built)."""


def at_least(a: str, b: str, *, ignore_missing: bool = False):
    """Column a ≥ column b on every row (with ignore_missing, rows where either is null are skipped)."""
    import great_expectations as gx

    return gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=a, column_B=b, or_equal=True,
        **({"ignore_row_if": "either_value_is_missing"} if ignore_missing else {}))


# Percentages are stored as doubles; three shares of one count add up to 100 within this much.
PCT_TOLERANCE = 0.01


def share_expectations() -> list:
    """The same / tie / reverse share marts' expectations (rank_reproducibility, close_pairs); their
    plain column checks (keys, k >= 1) are dbt tests in the marts' yml."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    compared = Column("n_comparisons") > 0
    return [
        *[gx.expectations.ExpectColumnValuesToBeBetween(
            column=c, min_value=0, max_value=100, row_condition=compared)
          for c in ("pct_same", "pct_tie", "pct_reverse")],
        # A row with comparisons must split them completely into same, tie and reverse.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="pct_total", row_condition=compared),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="pct_total", min_value=100 - PCT_TOLERANCE, max_value=100 + PCT_TOLERANCE,
            row_condition=compared),
    ]
