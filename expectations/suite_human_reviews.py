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
        gx.expectations.ExpectColumnValuesToNotBeNull(column="human_review_id"),
        gx.expectations.ExpectColumnValuesToBeUnique(column="human_review_id"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="paper_id"),
        # Import refuses unknown scales; a null here means the contract was bypassed.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rating_scale"),
        # A scale the mart could not parse has no bounds (and leaves is_rating_on_scale null).
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rating_scale_min"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rating_scale_max"),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="rating", column_B="rating_scale_min", or_equal=True,
            ignore_row_if="either_value_is_missing"),
        gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="rating_scale_max", column_B="rating", or_equal=True,
            ignore_row_if="either_value_is_missing"),
        # Within the bounds is not enough on a gapped scale (ICLR 2025: 1,3,5,6,8,10 has no 7).
        gx.expectations.ExpectColumnValuesToBeInSet(column="is_rating_on_scale", value_set=[True]),
        # A review must belong to a paper peerlake knows (a manuscript or a venue status).
        gx.expectations.ExpectColumnValuesToBeInSet(column="has_known_paper", value_set=[True]),
    ]
