"""Expectations the judge panel marts share (suite_judge_*; metrics.quality.panel computes them)."""


def ordered_pair(first: str, second: str):
    """Each unordered pair once, named in order: `second` sorts strictly after `first`."""
    import great_expectations as gx

    return gx.expectations.ExpectColumnPairValuesAToBeGreaterThanB(column_A=second, column_B=first)
