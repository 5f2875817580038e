"""Suite `judge_card_checks`: the gate a study's [judging.require] sets on its judges. A requirement the
judge's card fails (or cannot show: not measured) with on_fail = "block" fails the gate, so the candidate
marts are not published and `peerlake query` keeps serving the previous ones; the failure message is
the row's `failure` text, naming the judge, the check and the value. With on_fail = "flag" the row is
published with is_judge_unvalidated instead."""

MODEL = "judge_card_checks"
KEY = "judge_card_check_id"
STAGE = "statistics"
COLUMNS = [KEY, "on_fail", "check_status", "failure", "is_judge_unvalidated"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [
        # the blocking one: a failed or unmeasured requirement of a judge whose study says block
        gx.expectations.ExpectColumnValuesToBeNull(column="failure", row_condition=Column("on_fail") == "block"),
        # a flagged row says why, and only a passed check has no failure text
        gx.expectations.ExpectColumnValuesToNotBeNull(column="failure",
                                                      row_condition=Column("check_status") != "pass"),
        gx.expectations.ExpectColumnValuesToBeInSet(column="is_judge_unvalidated", value_set=[True],
                                                    row_condition=Column("check_status") != "pass"),
    ]
