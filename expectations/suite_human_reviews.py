"""Suite `human_reviews`: fct_human_reviews — ratings on the venue's scale, no orphan reviews."""

MODEL = "fct_human_reviews"
KEY = "human_review_id"
STAGE = "inputs"
COLUMNS = ["human_review_id", "paper_id", "rating", "rating_scale", "rating_scale_min", "rating_scale_max",
           "is_rating_on_scale", "has_known_paper"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        # Scales present and parsed, ratings on them, papers known: dbt tests (fct_human_reviews.yml).
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="rating", column_B="rating_scale_min", or_equal=True,
            ignore_row_if="either_value_is_missing"),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="rating_scale_max", column_B="rating", or_equal=True,
            ignore_row_if="either_value_is_missing"),
    ]
