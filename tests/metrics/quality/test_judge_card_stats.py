"""The judge cards' statistics (metrics.quality.cards): each worked out by hand on a small example, then
cross-checked against the package that implements it (krippendorff, statsmodels, Shrout & Fleiss's
published table)."""

import math

import krippendorff
import numpy as np
import pytest

from peerlake.metrics.quality.cards import alpha, cluster_bootstrap, codes, cohen_kappa, fisher_ci, icc1

NAN = float("nan")


def test_alpha_nominal_by_hand():
    # 2 raters × 4 items, labels 0/1: (0,0) (1,1) (0,1) (1,1). Coincidences: o00 = 2, o11 = 4, o01 = o10 = 1;
    # n0 = 3, n1 = 5, n = 8. D_o = 2/8; D_e = 2·3·5 / (8·7) = 30/56; α = 1 − (1/4)/(30/56) = 1 − 14/30 = 8/15.
    data = [[0, 1, 0, 1], [0, 1, 1, 1]]
    assert alpha(data) == pytest.approx(8 / 15)
    assert alpha(data) == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_alpha_interval_by_hand_and_missing_values_are_left_out():
    # 2 repeats × 3 reviews, scores (1,2) (3,3) (5,4) and a 4th review with one score (not pairable).
    # Pairable values 1,2,3,3,5,4 (n 6). D_o = Σ over items of Σ_{pairs} (a−b)² / (m−1), / n:
    # (2·1 + 0 + 2·1) / 6 = 4/6. D_e = Σ_{all ordered pairs} (a−b)² / (n(n−1)): values mean 3, Σ(x−3)² = 10,
    # Σ_{i≠j} (xi−xj)² = 2·n·Σ(x−mean)² = 120; / 30 = 4. α = 1 − (4/6)/4 = 5/6.
    data = [[1, 3, 5, 2], [2, 3, 4, NAN]]
    assert alpha(data, "interval") == pytest.approx(5 / 6)
    assert alpha(data, "interval") == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                                       level_of_measurement="interval"))


def test_alpha_ordinal_matches_the_package():
    rng = np.random.default_rng(3)
    data = rng.integers(1, 6, size=(3, 40)).astype(float)
    data[0, :30] = data[1, :30]  # some agreement
    data[2, 5] = NAN
    assert alpha(data, "ordinal") == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                                      level_of_measurement="ordinal"))


def test_alpha_is_undefined_not_zero():
    assert math.isnan(alpha([[1, 1, 1], [1, 1, 1]]))  # one value: no expected disagreement
    assert math.isnan(alpha([[1, NAN], [NAN, 2]]))  # no item with two values


def test_kappa_by_hand():
    # rater a: 0 1 0 1, rater b: 0 1 1 1. Table a\b: [[1, 1], [0, 2]]; p_o = 3/4;
    # margins a (.5, .5), b (.25, .75): p_e = .125 + .375 = .5; κ = (.75 − .5) / .5 = .5.
    assert cohen_kappa([0, 1, 0, 1], [0, 1, 1, 1]) == pytest.approx(0.5)


def test_weighted_kappa_by_hand():
    # 3 ordered categories 0 1 2; pairs (0,0) (1,2) (2,2) (2,1): observed shares ¼ each in those cells.
    # margins a (¼, ¼, ½), b (¼, ¼, ½). Linear weights |i−j|: Σ w·obs = (1 + 1)/4 = .5;
    # Σ w·exp = Σ_ij |i−j| a_i b_j = 2·(¼·¼·1 + ¼·½·2 + ¼·½·1) = 2·(1/16 + 4/16 + 2/16) = 14/16;
    # κ_w = 1 − .5 / .875 = 3/7.
    a, b = [0, 1, 2, 2], [0, 2, 2, 1]
    assert cohen_kappa(a, b, "linear") == pytest.approx(3 / 7)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_matches_statsmodels(weights):
    from statsmodels.stats.inter_rater import cohens_kappa, to_table

    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, size=60)
    b = np.where(rng.random(60) < 0.6, a, rng.integers(0, 4, size=60))
    table, _ = to_table(np.column_stack([a, b]), bins=np.arange(5) - 0.5)
    wt = {None: None, "linear": "linear", "quadratic": "quadratic"}[weights]
    expected = cohens_kappa(table, wt=wt).kappa
    assert cohen_kappa(a, b, weights) == pytest.approx(expected)


def test_kappa_is_undefined_when_both_raters_say_one_thing():
    assert math.isnan(cohen_kappa([1, 1], [1, 1])) and math.isnan(cohen_kappa([], []))


def test_icc1_by_hand():
    # 3 reviews × 2 repeats: (1, 3) (4, 6) (7, 9). Grand mean 5; group means 2, 5, 8.
    # MSB = 2·(9 + 0 + 9) / 2 = 18; MSW = (1+1 + 1+1 + 1+1) / 3 = 2; F = 9; n₀ = 2.
    # ICC(1) = (F − 1) / (F + n₀ − 1) = 8 / 10 = 0.8.
    est, lo, hi = icc1([[1, 3], [4, 6], [7, 9]])
    assert est == pytest.approx(0.8) and lo < est < hi


def test_icc1_matches_shrout_and_fleiss():
    # Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges; ICC(1,1) = .17 (pingouin's intraclass_corr gives
    # ICC1 = 0.166, 95 % CI [-0.13, 0.72] on the same data).
    table = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    est, lo, hi = icc1(table)
    assert est == pytest.approx(0.1657, abs=5e-4)
    assert (round(lo, 2), round(hi, 2)) == (-0.13, 0.72)


def test_icc1_edges():
    assert all(math.isnan(v) for v in icc1([[1, 1], [1, 1]]))  # no variance at all
    assert icc1([[1, 1], [2, 2]]) == (1.0, 1.0, 1.0)  # repeats agree exactly
    assert all(math.isnan(v) for v in icc1([[1, 2]]))  # one review


def test_fisher_ci_by_hand():
    # r = .5, n = 28: z = atanh .5 = .5493, half-width 1.95996 / √25 = .39199: tanh(.1573) .. tanh(.9413)
    lo, hi = fisher_ci(0.5, 28)
    assert (lo, hi) == pytest.approx((math.tanh(0.549306 - 0.391993), math.tanh(0.549306 + 0.391993)), abs=1e-5)
    assert all(math.isnan(v) for v in fisher_ci(0.5, 3))


def test_cluster_bootstrap_resamples_whole_reviews_and_is_seeded():
    # every item of review "a" has value 1, of "b" 0: a resample's mean is the share of "a" draws, so the
    # interval lies in [0, 1], and the same seed gives the same interval
    values = np.array([1.0, 1.0, 1.0, 0.0])
    clusters = ["a", "a", "a", "b"]
    one = cluster_bootstrap(lambda cols: values[cols].mean(), clusters, n_resamples=200, seed=5)
    assert one == cluster_bootstrap(lambda cols: values[cols].mean(), clusters, n_resamples=200, seed=5)
    assert 0 <= one[0] <= one[1] <= 1
    # items of one review travel together: two reviews drawn are (a, a) → 1, (a, b) → 3/4 or (b, b) → 0;
    # never e.g. 2/3, which an item-level resample drawing 2 of a's items and 1 of b's would give
    seen = set()
    cluster_bootstrap(lambda cols: seen.add(round(values[cols].mean(), 6)) or 0.0, clusters, n_resamples=200, seed=5)
    assert seen and seen <= {0.0, 0.75, 1.0}


def test_codes_keep_numbers_on_an_ordinal_scale():
    values, cats = codes([3, None, 1], "ordinal")
    assert list(cats) == [1.0, 3.0] and values[0] == 3.0 and math.isnan(values[1])
    values, cats = codes(["premise", "claim", None], "nominal")
    assert cats == ["claim", "premise"] and list(values[:2]) == [1.0, 0.0]


def test_one_review_has_no_interval():
    # one cluster: every resample is the sample itself, a zero-width "interval" that would claim certainty
    lo, hi = cluster_bootstrap(lambda cols: 0.5, ["a", "a", "a"], n_resamples=50, seed=1)
    assert math.isnan(lo) and math.isnan(hi)
