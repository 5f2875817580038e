from itertools import permutations

import numpy as np
import pytest

from peerlake.metrics.distribution import brier_loss, collision_rate, debiased_risk, direct_sampling_risk


def test_debiased_risk_matches_the_formula_term_by_term():
    q = np.array([0, 0, 0, 0, 0.1, 0.5, 0.3, 0.1, 0, 0])
    z = np.array([6, 6, 7, 9])
    m = len(z)
    pairs = sum(z[j] == z[k] for j, k in permutations(range(m), 2))  # j ≠ k, ordered
    expect = (q ** 2).sum() - 2 / m * sum(q[zj - 1] for zj in z) + pairs / (m * (m - 1))
    assert debiased_risk(q, z) == pytest.approx(expect)
    assert collision_rate(z) == pytest.approx(2 / 12)
    assert brier_loss(q, z) - debiased_risk(q, z) == pytest.approx(1 - 2 / 12)


def test_debiased_risk_is_unbiased_for_the_squared_distance():
    rng = np.random.default_rng(20261129)
    p = np.array([0, 0.05, 0.1, 0.1, 0.2, 0.25, 0.15, 0.1, 0.05, 0])
    q = np.array([0, 0, 0.1, 0.2, 0.2, 0.2, 0.2, 0.1, 0, 0])
    truth = ((q - p) ** 2).sum()
    draws = rng.choice(np.arange(1, 11), p=p, size=(40_000, 3))
    est = np.array([debiased_risk(q, z) for z in draws])
    se = est.std() / np.sqrt(len(est))
    assert abs(est.mean() - truth) < 4 * se
    # the naive plug-in (no collision correction) is biased by a margin far beyond the noise
    naive = np.mean([((q - np.bincount(z, minlength=11)[1:] / 3) ** 2).sum() for z in draws[:5000]])
    assert naive - truth > 0.1


def test_direct_sampling_risk_agrees_with_simulation():
    rng = np.random.default_rng(7)
    p = np.array([0, 0, 0.1, 0.2, 0.4, 0.2, 0.1, 0, 0, 0])
    for n in (1, 2, 5):
        draws = rng.choice(np.arange(1, 11), p=p, size=(20_000, n))
        emp = np.stack([np.bincount(d, minlength=11)[1:] / n for d in draws])
        sim = ((emp - p) ** 2).sum(1).mean()
        assert direct_sampling_risk((p ** 2).sum(), n) == pytest.approx(sim, rel=0.03)
    # collision rate is unbiased for ‖p‖²
    z = rng.choice(np.arange(1, 11), p=p, size=(20_000, 5))
    assert np.mean([collision_rate(x) for x in z]) == pytest.approx((p ** 2).sum(), rel=0.02)
