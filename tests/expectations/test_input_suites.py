"""The input gates (they run before any statistic is built): human ratings on the venue's scale,
costs that are null only with a reason."""

import pandas as pd
import pytest

from peerlake.expectations import validate_frame
from tests.expectations.test_gates import calls


def failed(suite: str, data: pd.DataFrame) -> set[str]:
    result = validate_frame(suite, data)
    assert not result.success, result.describe()
    return {f.split(": ", 1)[0] for f in result.failures}


def human(**changes) -> pd.DataFrame:
    """A valid fct_human_reviews: ICLR 2025's gapped 1..10 scale and a 0..10 one (mins/maxes by hand)."""
    frame = pd.DataFrame({
        "human_review_id": ["r1", "r2", "r3"],
        "paper_id": ["P1", "P1", "P2"],
        "rating": [6.0, 10.0, 0.0],
        "rating_scale": ["ICLR2025:1,3,5,6,8,10", "ICLR2025:1,3,5,6,8,10", "ICLR2026:0,2,4,6,8,10"],
        "rating_scale_min": [1.0, 1.0, 0.0],
        "rating_scale_max": [10.0, 10.0, 10.0],
        "is_rating_on_scale": [True, True, True],
        "has_known_paper": [True, True, True],
    })
    for column, values in changes.items():
        frame[column] = values
    return frame


def test_human_reviews_on_their_venues_scales_pass():
    result = validate_frame("human_reviews", human())
    assert result.success, result.describe()


def test_a_rating_outside_its_scales_bounds_fails_naming_the_bound_and_the_review():
    result = validate_frame("human_reviews", human(rating=[6.0, 11.0, -1.0],
                                                   is_rating_on_scale=[True, False, False]))
    by_expectation = {f.split(": ", 1)[0]: f for f in result.failures}
    above = ("expect_column_pair_values_a_to_be_greater_than_b(column_A=rating_scale_max, column_B=rating, "
             "or_equal=True, ignore_row_if=either_value_is_missing)")
    below = ("expect_column_pair_values_a_to_be_greater_than_b(column_A=rating, column_B=rating_scale_min, "
             "or_equal=True, ignore_row_if=either_value_is_missing)")
    assert set(by_expectation) == {above, below}  # (is_rating_on_scale: a dbt test in the yml)
    assert "['r2']" in by_expectation[above] and "['r3']" in by_expectation[below]


# A scale the mart could not parse, negative token counts of every kind, a cost status the gateway never
# writes: dbt tests in the marts' yml (some run in tests/expectations/test_column_checks.py).


@pytest.mark.parametrize("cost_usd, cost_status, expectation", [
    # e1 says priced but has no cost: a known price silently dropped from cost_by_model's total
    ([None, None, None, 0.0], ["priced", "no_usage", "unknown_model", "free"],
     "expect_column_values_to_be_in_set(cost_status, value_set=['unknown_model', 'no_usage', 'bad_usage'], "
     "where cost_usd is null)"),
    # e3's model has no price, yet a cost of 0 was written: an unknown price summed as free
    ([0.002, None, 0.0, 0.0], ["priced", "no_usage", "unknown_model", "free"],
     "expect_column_values_to_be_null(cost_usd, where cost_status IN ['unknown_model', 'no_usage', "
     "'bad_usage'])"),
])
def test_an_unknown_cost_must_be_flagged_and_a_flagged_cost_must_be_unknown(cost_usd, cost_status, expectation):
    assert failed("llm_calls", calls(cost_usd=cost_usd, cost_status=cost_status)) == {expectation}

