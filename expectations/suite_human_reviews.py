"""Suite `human_reviews`: fct_human_reviews — ratings on the venue's scale, no orphan reviews."""

MODEL = "fct_human_reviews"
KEY = "human_review_id"
COLUMNS = ["human_review_id", "paper_id", "rating", "rating_scale", "is_rating_on_scale", "has_known_paper"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="human_review_id"),
        gx.expectations.ExpectColumnValuesToBeUnique(column="human_review_id"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="paper_id"),
        # Import refuses unknown scales; a null here means the contract was bypassed.
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rating_scale"),
        gx.expectations.ExpectColumnValuesToBeInSet(column="is_rating_on_scale", value_set=[True]),
        # A review must belong to a paper peerlake knows (a manuscript or a venue status).
        gx.expectations.ExpectColumnValuesToBeInSet(column="has_known_paper", value_set=[True]),
    ]
