"""The probe shift and its verdict: expected values worked by hand, then cross-checked against scipy's own
t-test intervals (scipy.stats.ttest_1samp / ttest_ind(equal_var=False)), which this module does not call."""

import json
import math

import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.quality.probes import Shift, paired_shift, probe_table, verdict, welch_shift


def test_paired_shift_by_hand():
    # d = 1, 2, 3: mean 2, sd 1, se 1/√3; t(0.975, 2) = 4.302653 (tables) → half width 2.484138
    s = paired_shift([1, 2, 3])
    assert (s.shift, s.n) == (2.0, 3)
    assert s.ci_low == pytest.approx(2 - 4.302653 / math.sqrt(3), abs=1e-6)
    assert s.ci_high == pytest.approx(2 + 2.484138, abs=1e-6)


def test_paired_shift_matches_scipy_ttest_1samp():
    d = [0.3, -0.1, 0.25, 0.0, 0.4, 0.05]
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    s = paired_shift(d)
    assert (s.ci_low, s.ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_one_pair_has_no_interval_and_none_has_no_shift():
    assert paired_shift([0.5]) == Shift(0.5, None, None, 1)
    assert paired_shift([]) == Shift(None, None, None, 0)


def test_welch_shift_by_hand():
    # a = 1,2,3 (mean 2, var 1), b = 4,6 (mean 5, var 2): diff −3; se² = 1/3 + 2/2 = 4/3;
    # df = (4/3)² / ((1/3)²/2 + 1²/1) = (16/9)/(19/18) = 32/19
    s = welch_shift([1, 2, 3], [4, 6])
    half = stats.t.ppf(0.975, 32 / 19) * math.sqrt(4 / 3)
    assert (s.shift, s.n) == (-3.0, 5)
    assert (s.ci_low, s.ci_high) == (pytest.approx(-3 - half), pytest.approx(-3 + half))
    ci = stats.ttest_ind([1, 2, 3], [4, 6], equal_var=False).confidence_interval(0.95)
    assert (s.ci_low, s.ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_welch_needs_two_per_side():
    assert welch_shift([1.0], [2.0, 3.0]) == Shift(-1.5, None, None, 3)
    assert welch_shift([], [2.0]).shift is None


@pytest.mark.parametrize(("shift", "tol", "expected"), [
    (Shift(0.0, -0.04, 0.04, 9), 0.05, "pass"),
    (Shift(0.0, -0.06, 0.04, 9), 0.05, "inconclusive"),  # the interval reaches past the tolerance
    (Shift(0.3, 0.2, 0.4, 9), 0.05, "fail"),  # wholly beyond +tolerance
    (Shift(-0.3, -0.4, -0.2, 9), 0.05, "fail"),
    (Shift(0.01, None, None, 1), 0.05, "inconclusive"),  # one pair: no interval, never a pass
    (Shift(3.0, 3.0, 3.0, 4), 1.0, "fail"),  # four equal differences of 3: sd 0, a point beyond 1
])
def test_verdict(shift, tol, expected):
    assert verdict(shift, tol) == expected


def _pairs(rows):
    cols = ["study_id", "judge", "step", "judge_config", "judge_model", "probe", "is_pair_ok", "original_units",
            "variant_units", "original_inputs", "variant_inputs"]
    return pd.DataFrame(rows, columns=cols)


def _comments(*clc_points):
    # a comment with `p` points: actionability carries them (up to 2) and the rest specificity ...
    out = []
    for p in clc_points:
        ratings, left = {}, p
        for name in ("actionability", "specificity", "justification", "solution", "tone"):
            ratings[name] = min(2, left)
            left -= ratings[name]
        out.append(ratings)
    return json.dumps(out)


def test_probe_table_pairs_variant_with_original_by_hand():
    # three constructiveness pairs: mcs 0.5 → 0.6, 0.4 → 0.4, 0.6 → 0.8 (d = 0.1, 0, 0.2; mean 0.1);
    # n_comments 1 → 1 each (d = 0, 0, 0: a point at 0, within the tolerance 1 → pass); one pair not ok
    base = ["S", "constructiveness", "comments", "cfg", "qwen2.5"]
    rows = [[*base, "length", True, _comments(5), _comments(6), "{}", "{}"],
            [*base, "length", True, _comments(4), _comments(4), "{}", "{}"],
            [*base, "length", True, _comments(6), _comments(8), "{}", "{}"],
            [*base, "length", False, None, None, None, None]]
    flagged = pd.DataFrame(columns=["study_id", "judge", "judge_config", "judge_model", "metric", "source",
                                    "value", "is_same_family"])
    resolutions = pd.DataFrame({"study_id": ["S"], "judges": ['[{"judge": "constructiveness", "tolerances": '
                                                              '{"length.mcs": 0.5}}]']})
    out = {r["dimension"]: r for r in probe_table(_pairs(rows), flagged, resolutions).to_dict("records")}
    mcs = out["mcs"]
    assert mcs["n"] == 3 and mcs["shift"] == pytest.approx(0.1)
    half = stats.t.ppf(0.975, 2) * 0.1 / math.sqrt(3)  # sd of (0.1, 0, 0.2) is 0.1
    assert (mcs["ci_low"], mcs["ci_high"]) == (pytest.approx(0.1 - half), pytest.approx(0.1 + half))
    assert (mcs["mean_reference"], mcs["mean_variant"]) == (pytest.approx(0.5), pytest.approx(0.6))
    assert (mcs["tolerance"], mcs["status"]) == (0.5, "pass")  # [−0.148, 0.348] lies within ±0.5
    assert mcs["n_unmeasured"] == 1  # the pair that is not ok counts against every dimension of its probe
    n_comments = out["n_comments"]
    assert (n_comments["shift"], n_comments["status"], n_comments["tolerance"]) == (0.0, "pass", 1.0)
    assert n_comments["judge_probe_id"] == "S|cfg|length|n_comments"
