"""Suite `cost_breakdown`: one row per study scope, dimension and value, counts ≥ 0, every attempt counted once as
paid or failed, cost null-or-≥-0 and never a 0 standing for "unknown": unpriced calls are flagged."""

MODEL = "cost_breakdown"
KEY = "cost_breakdown_id"
STAGE = "statistics"
COUNTS = ("n_attempts", "n_paid_calls", "n_error_attempts", "n_batch_calls", "n_replays", "n_retrieval_calls",
          "n_retrieval_replays", "n_unpriced_calls")
TOKENS = ("input_tokens", "uncached_input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens",
          "reasoning_tokens")
COLUMNS = [KEY, "study_scope", "dimension", "dimension_value", *COUNTS, *TOKENS, "cost_usd", "recorded_cost_usd",
           "is_cost_complete", "note"]


def derive(frame):
    """Attempts counted as neither paid nor failed; answered calls whose cost is known."""
    frame["n_attempts_unaccounted"] = frame["n_attempts"] - frame["n_paid_calls"] - frame["n_error_attempts"]
    frame["n_paid_calls_priced"] = frame["n_paid_calls"] - frame["n_unpriced_calls"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_scope", "dimension", "dimension_value"]),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_attempts_unaccounted", min_value=0, max_value=0),
        at_least("n_paid_calls", "n_unpriced_calls"),
        at_least("n_paid_calls", "n_batch_calls"),
        # cost_usd sums the known costs: a priced answer makes it non-null, a row without one keeps it null
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="cost_usd", row_condition=Column("n_paid_calls_priced") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="cost_usd", row_condition=Column("n_paid_calls_priced") == 0),
        # an unpriced answered call makes the total incomplete, and the row must say so
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[True], row_condition=Column("n_unpriced_calls") == 0),
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="is_cost_complete", value_set=[False], row_condition=Column("n_unpriced_calls") > 0),
        # a placeholder value says what it stands for
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="note", row_condition=Column("dimension_value").is_in(["(cli)", "(no study)"])),
    ]
