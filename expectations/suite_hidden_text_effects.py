"""Suite `hidden_text_effects`: one row per study, reviewer configuration and method; counts ≥ 0; a Δ is
null exactly when no paper has both versions, with a reason then; mentions never exceed the reviews judged."""

MODEL = "hidden_text_effects"
KEY = "hidden_text_effect_id"
STAGE = "statistics"
COUNTS = ("n_variants", "n_self_pairs", "n_judge_pairs", "n_reviews_judged")
COLUMNS = [KEY, "study_id", "reviewer_config", "method", "is_defence", "self_delta_mean", "self_null_reason",
           "judge_delta_mean", "judge_null_reason", "n_reviews_mentioning", "mention_share", "mention_null_reason",
           *COUNTS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_variants", "n_self_pairs"),
        at_least("n_variants", "n_judge_pairs"),
        at_least("n_reviews_judged", "n_reviews_mentioning", ignore_missing=True),  # null when none judged
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="self_null_reason", row_condition=Column("n_self_pairs") == 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="judge_null_reason", row_condition=Column("n_judge_pairs") == 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="mention_null_reason", row_condition=Column("n_reviews_judged") == 0),
    ]
