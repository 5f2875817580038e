"""Budgets from worked numbers, and the certified bound U against its defining equation."""

import math

import numpy as np
import pytest

from peerlake.metrics.stats.budgets import (
    certified_budget,
    certified_pairs,
    compute_budgets,
    kl_bernoulli,
    planning_budget,
    range_only_budget,
    variance_upper_bound,
)

B = 81 / 2  # (b − a)²/2 on 1..10
CAP = 81 / 4


def test_kl_matches_the_formula_and_vanishes_at_p():
    p, q = 0.1, 0.3
    assert kl_bernoulli(p, q) == pytest.approx(p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q)))
    assert kl_bernoulli(0.2, 0.2) == pytest.approx(0.0, abs=1e-15)
    assert kl_bernoulli(0.0, 0.5) == pytest.approx(math.log(2))  # 0·log 0 = 0


@pytest.mark.parametrize("v_hat,m,alpha", [(1.0, 500, 0.05), (2.5, 40, 0.01), (0.3, 2000, 0.05 / 3)])
def test_u_solves_the_kl_equation_above_v_hat(v_hat, m, alpha):
    u = variance_upper_bound(v_hat, m, alpha)
    assert v_hat < u < CAP
    assert m * kl_bernoulli(v_hat / B, u / B) == pytest.approx(math.log(1 / alpha), rel=1e-9)


def test_u_for_a_zero_variance_pilot_has_a_closed_form():
    # kl(0, q) = −log(1 − q), so M·kl = log(1/α) gives q = 1 − α^(1/M).
    m, alpha = 300, 0.05
    assert variance_upper_bound(0.0, m, alpha) == pytest.approx(B * (1 - alpha ** (1 / m)), rel=1e-12)


def test_u_is_capped_and_shrinks_with_more_pairs():
    assert variance_upper_bound(2.0, 1, 0.05) == CAP  # one pair says almost nothing
    assert variance_upper_bound(2.0, 0, 0.05) == CAP
    assert variance_upper_bound(30.0, 10_000, 0.05) == CAP  # V̂ above the largest possible V
    us = [variance_upper_bound(2.0, m, 0.05) for m in (50, 200, 1000, 10_000)]
    assert us == sorted(us, reverse=True) and us[-1] > 2.0


def test_u_covers_the_true_variance_in_repeated_pilots():
    # Scores uniform on {4, 5, 6}: V = 2/3. Pilots of 40 papers × 2 reviews; V̂ from each.
    rng = np.random.default_rng(7)
    alpha, true_v, trials = 0.1, 2 / 3, 1500
    pilots = rng.integers(4, 7, size=(trials, 40, 2)).astype(float)
    v_hats = pilots.var(axis=2, ddof=1).mean(axis=1)
    misses = sum(variance_upper_bound(v, 40, alpha) < true_v for v in v_hats)
    assert misses / trials <= alpha
    assert np.mean(v_hats) == pytest.approx(true_v, rel=0.03)


def test_worked_budgets():
    # 1.2 / (0.05 · 0.25) = 96 exactly (no spurious 97 from float noise); at ε = 0.25: 384.
    assert planning_budget(1.2, 0.5, 0.05) == 96
    assert planning_budget(1.2, 0.25, 0.05) == 384
    assert planning_budget(1.21, 0.5, 0.05) == 97
    # 81 · log(40) / (2 · 0.25) = 597.55… -> 598; at ε = 0.25 -> 2390.2… -> 2391.
    assert range_only_budget(0.5, 0.05) == math.ceil(81 * math.log(40) / 0.5) == 598
    assert range_only_budget(0.25, 0.05) == 2391
    assert range_only_budget(0.5, 0.05, scale_min=0, scale_max=10) == math.ceil(100 * math.log(40) / 0.5)
    assert planning_budget(0.0, 0.5, 0.05) == 1  # a mean of k new scores needs k ≥ 1
    assert certified_budget(3.0, 0.5, 0.05) == 240


def test_compute_budgets_uses_m_pairs_and_alpha_per_config():
    one = compute_budgets(1.2, 50, 4, 0.5)
    assert one.n_pairs == 100 and one.alpha_per_config == 0.05
    assert one.variance_upper == pytest.approx(variance_upper_bound(1.2, 100, 0.05))
    assert one.certified_budget == math.ceil(one.variance_upper / (0.05 * 0.25))
    assert one.planning_budget <= one.certified_budget <= one.range_only_budget
    five = compute_budgets(1.2, 50, 4, 0.5, n_configs=5)
    assert five.alpha_per_config == pytest.approx(0.01)
    assert five.variance_upper > one.variance_upper
    assert compute_budgets(1.2, 50, 5, 0.5).n_pairs == 100  # ⌊5/2⌋ = 2 per paper
    assert compute_budgets(1.2, 50, 5, 0.5, n_pairs=130).n_pairs == 130


@pytest.mark.parametrize("kwargs", [{"tolerance": 0}, {"beta": 1.0}, {"alpha": 0},
                                    {"variance_hat": -1}, {"variance_hat": 41.0}])
def test_bad_input_is_a_clear_error(kwargs):
    args = {"variance_hat": 1.0, "n_papers": 10, "pilot_reviews": 2, "tolerance": 0.5} | kwargs
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        compute_budgets(**args)


def _coverage(counts: list[int], p: float, alpha: float, n_pairs: int) -> float:
    """P(V ≤ U(V̂)) computed exactly, by enumerating every outcome of a pilot.

    Scores are 1 or 10 (10 with probability p): a two-point law on the scale's ends, where the
    bound is at its tightest. A paper with n scores, j of them 10, has S² = 81·j(n − j)/(n(n − 1));
    V̂ is the mean of independent papers' S², so its law is the convolution of the per-paper
    binomial laws, enumerated here by hand."""
    sums = {0.0: 1.0}  # Σ S_i² -> probability
    for n in counts:
        paper: dict[float, float] = {}
        for j in range(n + 1):
            s2 = round(81 * j * (n - j) / (n * (n - 1)), 9)
            paper[s2] = paper.get(s2, 0.0) + math.comb(n, j) * p ** j * (1 - p) ** (n - j)
        nxt: dict[float, float] = {}
        for a, pa in sums.items():
            for b, pb in paper.items():
                key = round(a + b, 9)
                nxt[key] = nxt.get(key, 0.0) + pa * pb
        sums = nxt
    true_v = 81 * p * (1 - p)
    return sum(pr for total, pr in sums.items()
               if variance_upper_bound(total / len(counts), n_pairs, alpha) >= true_v)


def test_certified_pairs_keep_coverage_with_unequal_reviews_per_paper():
    # Four papers kept 20 parsed scores, four only 2 (their other answers failed to parse).
    counts, p, alpha = [2, 2, 2, 2, 20, 20, 20, 20], 0.3, 0.05
    assert certified_pairs(counts) == 8 * 1  # N·⌊n_min/2⌋
    assert _coverage(counts, p, alpha, certified_pairs(counts)) >= 1 - alpha
    # The old count Σ⌊n_i/2⌋ = 44 treats the 2-score papers' one pair each like the others' ten:
    # U comes out too small and misses V far more often than α (exactly 10.9 % here).
    old = sum(n // 2 for n in counts)
    assert old == 44 and _coverage(counts, p, alpha, old) < 1 - alpha - 0.05


def test_certified_pairs_equal_the_classic_count_when_every_paper_has_n_scores():
    assert certified_pairs([5] * 40) == 40 * 2 == compute_budgets(1.0, 40, 5, 0.5).n_pairs
    assert certified_pairs([]) == 0
    with pytest.raises(ValueError, match="at least 2"):
        certified_pairs([1, 4])
