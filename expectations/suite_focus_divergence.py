"""Suite `focus_divergence`: one row per study and reviewer configuration (never the humans), every KL
component ≥ 0 (ε-smoothed distributions over the same labels), a mean that exists exactly when all four
components do, and a reason named wherever a component is missing."""

MODEL = "focus_divergence"
KEY = "focus_divergence_id"
STAGE = "statistics"
KL = ("kl_strength_target", "kl_strength_aspect", "kl_weakness_target", "kl_weakness_aspect", "kl_mean")
COUNTS = ("n_components", "n_items_strength", "n_items_weakness", "n_human_items_strength",
          "n_human_items_weakness")
COLUMNS = [KEY, "study_id", "reviewer_config", "null_reason", "epsilon", *KL, *COUNTS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "reviewer_config"]),
        gx.expectations.ExpectColumnValuesToNotBeInSet(column="reviewer_config", value_set=["human"]),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="kl_mean", row_condition=Column("n_components") == 4),
        gx.expectations.ExpectColumnValuesToBeNull(column="kl_mean", row_condition=Column("n_components") < 4),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason", row_condition=Column("n_components") < 4),
    ]
