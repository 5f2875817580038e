"""Suite `llm_calls`: every call event is attributable (model, prompt) and costed sanely."""

MODEL = "fct_llm_calls"
KEY = "llm_call_id"
STAGE = "inputs"
TOKENS = ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")
COLUMNS = ["llm_call_id", "purpose", "status", "provider", "model", "prompt_hash", *TOKENS,
           "cost_usd", "cost_status", "latency_ms"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.llm_calls.cost import BAD_USAGE, NO_USAGE, UNKNOWN_MODEL

    ok = Column("status") == "ok"
    return [
        # Review scores are grouped by prompt version; a review without its hash is unattributable.
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="prompt_hash", row_condition=Column("purpose") == "review"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="input_tokens", row_condition=ok),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="output_tokens", row_condition=ok),
        # Null cost means "price unknown" and is allowed (a negative one, a status the gateway never writes:
        # dbt tests), but an unknown price must be flagged with its reason, and a flagged one must be
        # null, so cost_by_model never sums an unknown cost as 0 nor drops a known one.
        gx.expectations.ExpectColumnValuesToBeInSet(
            column="cost_status", value_set=[UNKNOWN_MODEL, NO_USAGE, BAD_USAGE],
            row_condition=Column("cost_usd").is_null()),
        gx.expectations.ExpectColumnValuesToBeNull(
            column="cost_usd", row_condition=Column("cost_status").is_in([UNKNOWN_MODEL, NO_USAGE, BAD_USAGE])),
    ]
