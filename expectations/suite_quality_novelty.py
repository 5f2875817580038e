"""Suite `quality_novelty`: NS, SR and SSR are shares (SSR <= SR: s_c >= 2 implies s_c >= 1); a null
NS has a reason; scored claims <= claims."""

MODEL = "quality_novelty"
KEY = "quality_novelty_id"
STAGE = "statistics"
SHARES = ("ns", "sr", "ssr")
COLUMNS = [KEY, "study_id", "review_key", "judge_config", "source", "is_null", "null_reason", "n_repeats",
           "n_repeats_scored", "n_claims", "n_claims_scored", "ns_sd", *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations import shared
    from peerlake.expectations.quality_reviews import judged_review_expectations

    return [
        *judged_review_expectations("ns"),
        gx.expectations.ExpectColumnValuesToBeBetween(
            column="n_claims_scored", min_value=1, row_condition=Column("ns").is_not_null()),
        shared.at_least("n_claims", "n_claims_scored", ignore_missing=True),
        shared.at_least("sr", "ssr", ignore_missing=True),
    ]
