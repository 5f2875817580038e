"""Suite `review_consistency`: one row per (study, polarity, kind, configuration pair), every S mean a
cosine average in [-1, 1] inside its bootstrap interval, within rows comparing a configuration with
itself and cross rows two different ones, counts that fit (pairs ≥ papers ≥ 1), and the embedding model
named with its hash on every row."""

MODEL = "review_consistency"
KEY = "review_consistency_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_pairs", "n_reviews", "n_items", "n_resamples", "n_embeddings_computed",
          "n_embeddings_cached")
COLUMNS = [KEY, "study_id", "polarity", "kind", "config_a", "config_b", "s_mean", "s_ci_low", "s_ci_high",
           "embedding_model", "embedding_model_hash", "bootstrap_seed", *COUNTS]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["study_id", "polarity", "kind", "config_a",
                                                                     "config_b"]),
        at_least("n_pairs", "n_papers"),
        at_least("s_mean", "s_ci_low"),
        at_least("s_ci_high", "s_mean"),
        gx.expectations.ExpectColumnPairValuesToBeEqual(column_A="config_a", column_B="config_b",
                                                        row_condition=Column("kind") == "within"),
    ]
