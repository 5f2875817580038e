"""Suite `ai_review_scores`: the contract of fct_ai_review_scores that metrics rely on.

A reviewer system's review (system_review_id set) has no single llm_call and may come without a
confidence, like an imported one. A null system review is unparsed with overall_score_raw null: it
counts against the system's parse rate but not in the out-of-scale tolerance below (GX leaves nulls
out of `mostly`), since a system that gave up said so instead of answering off the scale."""

MODEL = "fct_ai_review_scores"
KEY = "review_score_id"
STAGE = "inputs"
COLUMNS = ["review_score_id", "paper_id", "reviewer_config", "sample_index", "overall_score",
           "overall_score_raw", "confidence", "is_parsed", "parse_error", "llm_call_id", "source", "system_review_id"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    parsed = Column("is_parsed") == True  # noqa: E712 - builds a GX condition, not a Python test
    # Imported external reviews and reviewer systems' reviews have no single llm_call and may come
    # without a confidence.
    own = (Column("source") == "peerlake") & Column("system_review_id").is_null()
    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="llm_call_id", row_condition=own),
        # A parsed review must carry a usable score and confidence; an unparsed one is flagged by
        # parse_error instead, so a null there would hide why it was not parsed.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="overall_score", row_condition=parsed),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="overall_score", min_value=1, max_value=10, row_condition=parsed),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="confidence", row_condition=parsed & own),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="confidence", min_value=1, max_value=5, row_condition=parsed),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="parse_error", row_condition=Column("is_parsed") == False),  # noqa: E712
        # The reviewer must follow the protocol's scale. Out-of-range answers are kept out of the
        # metrics (overall_score is null for them), but when more than 5% of reviews break the
        # scale the prompt or the model is broken, and nothing downstream should be reported.
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="overall_score_raw", min_value=1, max_value=10, mostly=0.95),
    ]
