"""Suite `judge_ranking_flips`: each pair of systems and of configurations once, in name order."""

MODEL = "judge_ranking_flips"
KEY = "judge_ranking_flip_id"
STAGE = "statistics"
COLUMNS = [KEY, "system_a", "system_b", "label_x", "label_y", "diff_x", "diff_y", "is_flipped"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.judge_panel import ordered_pair

    return [ordered_pair("system_a", "system_b"), ordered_pair("label_x", "label_y")]
