"""Suite `judge_cards`: a measured row has an estimate and an interval in order, every agreement figure is at
most 1 (κ, α, ICC and r never exceed perfect agreement), a row without an estimate says why, and
"unvalidated" is only ever the no-human-labels row (never a measured one); a row of mapped human labels
names the mapping by its SHA-256."""

MODEL = "judge_cards"
KEY = "judge_card_id"
STAGE = "statistics"
COLUMNS = [KEY, "statistic", "estimate", "ci_low", "ci_high", "status", "null_reason", "n", "label_mapping_sha256"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    measured, unmeasured = Column("status") == "measured", Column("status") != "measured"
    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="estimate", row_condition=measured),
        gx.expectations.ExpectColumnValuesToBeNull(column="estimate", row_condition=unmeasured),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=unmeasured),
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, max_value=1.0) for c in
          ("estimate", "ci_low", "ci_high")],
        at_least("ci_high", "ci_low", ignore_missing=True),
        gx.expectations.ExpectColumnValuesToBeInSet(column="statistic", value_set=["human_kappa"],
                                                    row_condition=Column("status") == "unvalidated"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n", min_value=1, row_condition=measured),
        gx.expectations.ExpectColumnValuesToMatchRegex(column="label_mapping_sha256",
                                                       regex=r"^[0-9a-f]{64}(?:, [0-9a-f]{64})*$"),
    ]
