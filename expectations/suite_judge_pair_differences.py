"""Suite `judge_pair_differences`: each pair of configurations once, in name order, and the difference's
interval in order."""

MODEL = "judge_pair_differences"
KEY = "judge_pair_difference_id"
STAGE = "statistics"
COLUMNS = [KEY, "label_x", "label_y", "mean_diff", "ci_low", "ci_high"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.judge_panel import ordered_pair
    from peerlake.expectations.shared import at_least

    return [ordered_pair("label_x", "label_y"), at_least("ci_high", "ci_low", ignore_missing=True)]
