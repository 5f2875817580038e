"""The Wilson interval: against scipy's binomtest on integer counts (a second implementation), by hand
on a fractional p̂ (a rate averaged over judge repeats), and nothing to bound when n = 0."""

import math

import pytest
from scipy.stats import binomtest

from peerlake.metrics.stats.wilson import wilson_interval


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 5), (3, 10), (5, 5), (7, 50), (18, 18), (1, 18), (130, 130)])
def test_it_agrees_with_scipy_on_integer_counts(k, n):
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = wilson_interval(k / n, n)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_a_fractional_rate_by_hand():
    # p̂ = 0.14 (7 positive judgments of 5 items × 10 repeats), n = 5 items, z = 1.96:
    # z² = 3.8416; 1 + z²/n = 1.76832; centre = (0.14 + 3.8416/10)/1.76832 = 0.52416/1.76832 = 0.296418...
    # half = 1.96/1.76832 · sqrt(0.14·0.86/5 + 3.8416/100) = 1.108396 · sqrt(0.02408 + 0.038416)
    #      = 1.108396 · 0.249992 = 0.277090...
    lo, hi = wilson_interval(0.14, 5, z=1.96)
    centre = 0.52416 / 1.76832
    half = 1.96 / 1.76832 * math.sqrt(0.062496)
    assert (lo, hi) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert (lo, hi) == pytest.approx((0.019327, 0.573507), abs=1e-6)


def test_nothing_to_bound_is_none_and_a_non_proportion_is_refused():
    assert wilson_interval(0.5, 0) is None and wilson_interval(None, 5) is None
    assert wilson_interval(float("nan"), 5) is None and wilson_interval(0.5, None) is None
    with pytest.raises(ValueError):
        wilson_interval(1.2, 5)
