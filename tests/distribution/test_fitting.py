from itertools import combinations

import numpy as np
import pytest

from metrics.distribution.fitting import (A0_GRID, SPLITS_2_3, W_GRID, PaperData, fit_and_evaluate)
from metrics.distribution.granularity import compare, within_paper_sd


def test_grids_and_the_ten_splits():
    assert A0_GRID[0] == -2.0 and A0_GRID[-1] == 0.4 and len(A0_GRID) == 13
    assert W_GRID == (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    assert len(SPLITS_2_3) == 10 == len(set(SPLITS_2_3))
    assert set(SPLITS_2_3) == set(combinations(range(5), 2))


def synthetic(n, seed, informative=True):
    """Papers whose true score distribution is centred on μ_i; the probe sees μ_i + 1 (inflated)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        mu = rng.integers(3, 8)
        p = np.zeros(10)
        p[[mu - 2, mu - 1, mu]] = [0.25, 0.5, 0.25]
        r = np.zeros(10)
        c = mu if informative else 5
        r[[c - 1, c, c + 1]] = [0.1, 0.8, 0.1]  # the probe's mode is one point too high
        scores = rng.choice(np.arange(1, 11), p=p, size=5)
        out.append(PaperData(f"P{i}", r, r > 0, scores, accepted=bool(mu >= 5)))
    return out


def test_fitting_learns_the_shift_and_beats_one_review():
    res = fit_and_evaluate(synthetic(40, 1), n_splits=6, n_boot=500)
    by = {m.method: m for m in res.methods}
    # the probe is one point high; the fitted move should pull it down (a0 + b0·s < s)
    for T, a0, b0, w in res.chosen:
        assert a0 + b0 * 6 < 6
    assert by["quick"].risk < by["direct_1"].risk
    assert by["direct_5"].risk == pytest.approx(by["direct_1"].risk / 5)
    assert by["quick"].risk_ci_low <= by["quick"].risk <= by["quick"].risk_ci_high
    assert by["direct_5"].auc > 0.8  # means of five reviews separate μ ≥ 5 from μ < 5


def test_uninformative_probe_shifts_weight_to_full_reviews():
    good = fit_and_evaluate(synthetic(40, 2), n_splits=4, n_boot=200)
    bad = fit_and_evaluate(synthetic(40, 2, informative=False), n_splits=4, n_boot=200)
    assert min(w for *_, w in bad.chosen) > max(w for *_, w in good.chosen)
    risk = {m.method: m.risk for m in bad.methods}
    assert risk["standard"] < risk["quick"]


def test_granularity_by_hand():
    integer = {"A": np.array([6, 6, 8]), "B": np.array([4, 5]), "C": np.array([7])}
    decimal = {"A": np.array([6.5, 7.5]), "B": np.array([4.2, 4.4]), "D": np.array([3.3])}
    g = compare(integer, decimal, {"A": 7.0, "B": 3.0}, n_boot=2000)
    assert g.n_papers == 2
    assert g.mean_shift == pytest.approx(((7.0 - 20 / 3) + (4.3 - 4.5)) / 2)
    assert g.mean_shift_ci_low <= g.mean_shift <= g.mean_shift_ci_high
    assert g.within_sd_integer == pytest.approx(np.sqrt((np.var([6, 6, 8], ddof=1) + 0.5) / 2))
    assert g.mae_integer == pytest.approx((1 / 3 + 1.5) / 2)
    assert g.mae_decimal == pytest.approx((0 + 1.3) / 2)
    assert g.mae_change == pytest.approx(g.mae_decimal - g.mae_integer)
    assert within_paper_sd([np.array([1.0])]) is None
