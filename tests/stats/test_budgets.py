"""Budgets from worked numbers, and the certified bound U against its defining equation."""

import math

import numpy as np
import pytest

from metrics.stats.budgets import (
    certified_budget,
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


@pytest.mark.parametrize("kwargs", [dict(tolerance=0), dict(beta=1.0), dict(alpha=0),
                                    dict(variance_hat=-1), dict(variance_hat=41.0)])
def test_bad_input_is_a_clear_error(kwargs):
    args = dict(variance_hat=1.0, n_papers=10, pilot_reviews=2, tolerance=0.5) | kwargs
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        compute_budgets(**args)
