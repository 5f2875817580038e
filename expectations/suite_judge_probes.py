"""Suite `judge_probes`: a shift lies inside its own interval, and a probe passes only on an interval (at
least two pairs, or two rows a side) that lies within ±tolerance — a single pair, or a missing interval,
is never a pass."""

MODEL = "judge_probes"
KEY = "judge_probe_id"
STAGE = "statistics"
COLUMNS = [KEY, "shift", "ci_low", "ci_high", "tolerance", "status", "n"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    passed = Column("status") == "pass"
    return [
        at_least("shift", "ci_low", ignore_missing=True),
        at_least("ci_high", "shift", ignore_missing=True),
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=passed)
          for c in ("ci_low", "ci_high")],
        gx.expectations.ExpectColumnValuesToBeBetween(column="n", min_value=2, row_condition=passed),
        # a pass's interval ends at or below +tolerance (its lower end at or above −tolerance is the same
        # check mirrored, which a column pair cannot state; the verdict's unit tests cover it)
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="tolerance", column_B="ci_high", or_equal=True, ignore_row_if="either_value_is_missing",
            row_condition=passed),
    ]
