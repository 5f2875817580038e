"""Suite `llm_calls`: every call event is attributable (model, prompt) and costed sanely."""

MODEL = "fct_llm_calls"
KEY = "llm_call_id"
COLUMNS = ["llm_call_id", "purpose", "status", "provider", "model", "prompt_hash",
           "input_tokens", "output_tokens", "cost_usd", "cost_status", "latency_ms"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    ok = Column("status") == "ok"
    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="llm_call_id"),
        gx.expectations.ExpectColumnValuesToBeUnique(column="llm_call_id"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="provider"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="model"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="status"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="cost_status"),
        # Review scores are grouped by prompt version; a review without its hash is unattributable.
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="prompt_hash", row_condition=Column("purpose") == "review"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="input_tokens", row_condition=ok),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="output_tokens", row_condition=ok),
        gx.expectations.ExpectColumnValuesToBeBetween(column="input_tokens", min_value=0),
        gx.expectations.ExpectColumnValuesToBeBetween(column="output_tokens", min_value=0),
        # Null cost means "price unknown" and is allowed; a negative one is a pricing bug.
        gx.expectations.ExpectColumnValuesToBeBetween(column="cost_usd", min_value=0),
        gx.expectations.ExpectColumnValuesToBeBetween(column="latency_ms", min_value=0),
    ]
