"""Suite `papers`: the contract of dim_papers that validity statistics rely on."""

MODEL = "dim_papers"
KEY = "paper_version_id"
STAGE = "inputs"
COLUMNS = ["paper_version_id", "paper_id", "version_number", "is_latest_version", "status",
           "acceptance_label", "n_paper_statuses", "n_pages", "n_images", "has_mixed_rating_scales"]

STATUSES = ["accepted", "rejected", "withdrawn", "desk_rejected", "submitted"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectColumnValuesToNotBeNull(column="paper_version_id"),
        gx.expectations.ExpectColumnValuesToBeUnique(column="paper_version_id"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="paper_id"),
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["paper_id", "version_number"]),
        # One status per paper: every version row of a paper tells the same story.
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_paper_statuses", min_value=0, max_value=1),
        gx.expectations.ExpectColumnValuesToBeInSet(column="status", value_set=STATUSES),
        # The acceptance label follows the status: accepted = 1; rejected, withdrawn, desk-rejected = 0.
        gx.expectations.ExpectColumnPairValuesToBeInSet(
            column_A="status", column_B="acceptance_label",
            value_pairs_set=[("accepted", 1), ("rejected", 0), ("withdrawn", 0), ("desk_rejected", 0)],
            ignore_row_if="either_value_is_missing"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_pages", min_value=0),
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_images", min_value=0),
    ]
