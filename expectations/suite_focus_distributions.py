"""Suite `focus_distributions`: one row per study × reviewer × polarity × dimension × label, counts ≥ 0, the
count of a label within its total, shares in [0, 1] that sum to 1 per (study, reviewer, polarity, dimension)
wherever the reviewer has items, and a share that is null with 'no_items' (never 0) where it has none."""

MODEL = "focus_distributions"
KEY = "focus_distribution_id"
STAGE = "statistics"
COUNTS = ("n_items", "n_items_total", "n_reviews", "n_reviews_labelled", "n_judgments_null")
COLUMNS = [KEY, "study_id", "reviewer_config", "polarity", "dimension", "label", "share", "share_null_reason",
           *COUNTS]
GROUP = ["study_id", "reviewer_config", "polarity", "dimension"]


def derive(frame):
    """The shares of each (study, reviewer, polarity, dimension), summed (NaN where every share is null)."""
    frame["share_sum"] = frame.groupby(GROUP)["share"].transform(lambda s: s.sum(min_count=1))
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_items_total", "n_items"),
        at_least("n_reviews", "n_reviews_labelled"),
        gx.expectations.ExpectColumnValuesToBeBetween(column="share_sum", min_value=1 - 1e-9, max_value=1 + 1e-9),
        gx.expectations.ExpectColumnValuesToBeNull(column="share", row_condition=Column("n_items_total") == 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="share_null_reason",
                                                      row_condition=Column("n_items_total") == 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="share", row_condition=Column("n_items_total") > 0),
    ]
