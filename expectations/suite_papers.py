"""Suite `papers`: the contract of dim_papers that validity statistics rely on."""

MODEL = "dim_papers"
KEY = "paper_version_id"
STAGE = "inputs"
COLUMNS = ["paper_version_id", "paper_id", "version_number", "is_latest_version", "status",
           "acceptance_label", "n_paper_statuses", "n_pages", "n_images", "has_mixed_rating_scales"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        gx.expectations.ExpectCompoundColumnsToBeUnique(column_list=["paper_id", "version_number"]),
        # The acceptance label follows the status: accepted = 1; rejected, withdrawn, desk-rejected = 0.
        gx.expectations.ExpectColumnPairValuesToBeInSet(
            column_A="status", column_B="acceptance_label",
            value_pairs_set=[("accepted", 1), ("rejected", 0), ("withdrawn", 0), ("desk_rejected", 0)],
            ignore_row_if="either_value_is_missing"),
    ]
