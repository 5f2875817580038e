"""Suite `cost_by_model`: token sums ≥ 0, cost null-or-≥-0, every call counted once as ok or
failed, and calls of unknown cost never hidden: an incomplete total is flagged as incomplete."""

MODEL = "cost_by_model"
KEY = "cost_group_id"
STAGE = "statistics"
TOKENS = ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")
COLUMNS = ["cost_group_id", "provider", "model", "n_calls", "n_ok_calls", "n_failed_calls", *TOKENS,
           "cost_usd", "n_calls_cost_unknown", "n_ok_calls_cost_unknown", "is_cost_complete"]


def derive(frame):
    """Calls counted as neither ok nor failed, and calls whose cost is in cost_usd."""
    frame["n_calls_unaccounted"] = frame["n_calls"] - frame["n_ok_calls"] - frame["n_failed_calls"]
    frame["n_calls_cost_known"] = frame["n_calls"] - frame["n_calls_cost_unknown"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_calls_unaccounted", min_value=0, max_value=0),
        at_least("n_calls", "n_calls_cost_unknown"),
        at_least("n_calls_cost_unknown", "n_ok_calls_cost_unknown"),
        at_least("n_ok_calls", "n_ok_calls_cost_unknown"),
        # cost_usd sums the known costs: null exactly when none is known, never a 0 standing for "unknown".
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="cost_usd", row_condition=Column("n_calls_cost_known") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="cost_usd", row_condition=Column("n_calls_cost_known") == 0),
        # An answered call without a price makes the total incomplete, and the row must say so.
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[True], row_condition=Column("n_ok_calls_cost_unknown") == 0),
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[False], row_condition=Column("n_ok_calls_cost_unknown") > 0),
    ]
