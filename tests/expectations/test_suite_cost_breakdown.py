"""The cost_breakdown suite on a hand-made frame: an unknown cost shown as 0, a total claimed complete
despite an unpriced call, an attempt counted twice and a placeholder without its note each fail, named.
(That the valid mart passes is checked on a real build in tests/dbt/test_cost_marts.py.)"""

import pandas as pd

from peerlake.expectations import validate_frame

ZERO = {"n_batch_calls": 0, "n_retrieval_replays": 0, "uncached_input_tokens": None, "cached_input_tokens": None,
        "cache_write_tokens": None, "output_tokens": None, "reasoning_tokens": None}
ROWS = [  # the cost_breakdown unit test's rows (dbt_project/models/marts/cost_breakdown.yml), by hand
    {"cost_breakdown_id": "k1", "study_scope": "(all studies)", "dimension": "study", "dimension_value": "s",
     "n_attempts": 2, "n_paid_calls": 2, "n_error_attempts": 0, "n_replays": 0, "n_retrieval_calls": 0,
     "input_tokens": 120, "cost_usd": 0.5, "recorded_cost_usd": 0.5, "n_unpriced_calls": 1,
     "is_cost_complete": False, "note": None, **ZERO},
    {"cost_breakdown_id": "k2", "study_scope": "(all studies)", "dimension": "study", "dimension_value": "(no study)",
     "n_attempts": 0, "n_paid_calls": 0, "n_error_attempts": 0, "n_replays": 0, "n_retrieval_calls": 1,
     "input_tokens": None, "cost_usd": None, "recorded_cost_usd": None, "n_unpriced_calls": 0,
     "is_cost_complete": True, "note": "calls made outside any study", **ZERO},
    {"cost_breakdown_id": "k3", "study_scope": "(all studies)", "dimension": "model", "dimension_value": "p/m",
     "n_attempts": 2, "n_paid_calls": 2, "n_error_attempts": 0, "n_replays": 0, "n_retrieval_calls": 0,
     "input_tokens": 120, "cost_usd": 0.5, "recorded_cost_usd": 0.5, "n_unpriced_calls": 1,
     "is_cost_complete": False, "note": None, **ZERO},
]
TOKENS = ["input_tokens", "uncached_input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens",
          "reasoning_tokens"]


def frame(**changes) -> pd.DataFrame:
    out = pd.DataFrame(ROWS)
    for column, values in changes.items():
        out[column] = values
    return out.astype(dict.fromkeys(TOKENS, "Int64"))


def test_the_suite_names_each_broken_expectation():
    # k2: no priced call, yet 0 instead of null; k3: an unpriced call, yet "complete";
    # k1: 2 attempts counted as 2 paid + 1 error; k2's placeholder lost its note
    bad = frame(cost_usd=[0.5, 0.0, 0.5], is_cost_complete=[False, True, True], n_error_attempts=[1, 0, 0],
                note=[None, None, None])
    result = validate_frame("cost_breakdown", bad)
    assert not result.success
    failed = {f.split(": ", 1)[0] for f in result.failures}
    assert failed == {
        "expect_column_values_to_be_null(cost_usd, where n_paid_calls_priced == 0)",
        "expect_column_values_to_be_in_set(is_cost_complete, value_set=[False], where n_unpriced_calls > 0)",
        "expect_column_values_to_be_between(n_attempts_unaccounted, min_value=0.0, max_value=0.0)",
        "expect_column_values_to_not_be_null(note, where dimension_value IN ['(cli)', '(no study)'])",
    }, result.describe()
