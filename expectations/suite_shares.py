"""Expectations shared by the same / tie / reverse marts (not a suite itself)."""

# Percentages are stored as doubles; three shares of one count add up to 100 within this much.
PCT_TOLERANCE = 0.01


def share_expectations(key: str) -> list:
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    compared = Column("n_comparisons") > 0
    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column=key),
        gx.expectations.ExpectColumnValuesToBeUnique(column=key),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="reviewer_config"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="k", min_value=1),
        *[gx.expectations.ExpectColumnValuesToBeBetween(
            column=c, min_value=0, max_value=100, row_condition=compared)
          for c in ("pct_same", "pct_tie", "pct_reverse")],
        # A row with comparisons must split them completely into same, tie and reverse.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="pct_total", row_condition=compared),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="pct_total", min_value=100 - PCT_TOLERANCE, max_value=100 + PCT_TOLERANCE,
            row_condition=compared),
    ]
