"""Prediction-powered inference: a worked example by hand, then the same numbers from ppi_py (the
authors' package, a test dependency only) and the label plan by hand."""

import math

import numpy as np
import pytest

from peerlake.metrics.quality.ppi import Z, difference, naive_mean, plan_labels, ppi_mean

Y = [1.0, 0.0, 1.0, 1.0, 0.0]  # human labels of five reviews
YHAT = [0.8, 0.2, 0.6, 0.9, 0.1]  # the judge on the same five
UNLABELED = [0.7, 0.3, 0.5, 0.9, 0.2, 0.4, 0.8, 0.6]  # the judge on eight reviews no human labelled


def test_ppi_mean_by_hand():
    # mean(Ŷ_u) = 4.4/8 = 0.55; Y − Ŷ = 0.2, −0.2, 0.4, 0.1, −0.1 → mean 0.08; θ̂ = 0.63
    # σ̂²(Ŷ_u) = 0.42/8 = 0.0525 → /8 = 0.0065625; σ̂²(Y − Ŷ) = 0.228/5 = 0.0456 → /5 = 0.00912
    est = ppi_mean(Y, YHAT, UNLABELED)
    assert est.mean == pytest.approx(0.63) and est.n_labels == 5
    assert est.se == pytest.approx(math.sqrt(0.0065625 + 0.00912))
    lo, hi = est.ci
    assert (lo, hi) == (pytest.approx(0.63 - 1.959964 * 0.1252298, abs=1e-6),
                        pytest.approx(0.63 + 1.959964 * 0.1252298, abs=1e-6))


def test_ppi_mean_matches_ppi_py():
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(7)
    y = rng.normal(0.5, 0.2, 40)
    yhat = y + rng.normal(0.05, 0.1, 40)  # a judge biased by +0.05
    unl = rng.normal(0.55, 0.22, 300)
    est = ppi_mean(y, yhat, unl)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.05, lam=1)
    assert est.ci == (pytest.approx(float(lo[0])), pytest.approx(float(hi[0])))
    assert est.mean == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=1)[0]))
    clo, chi = ppi_py.classical_mean_ci(np.concatenate([yhat, unl]), alpha=0.05)
    assert naive_mean(np.concatenate([yhat, unl])).ci == (pytest.approx(float(clo)), pytest.approx(float(chi)))


def test_too_few_labels_or_none_unlabelled():
    assert ppi_mean([1.0], [0.5], [0.2, 0.3]).mean is None
    every = ppi_mean([1.0, 0.0, 1.0], [0.9, 0.1, 0.8], [])  # all labelled: the labels' own mean
    assert every.mean == pytest.approx(2 / 3) and every.se == pytest.approx(np.std([1, 0, 1]) / math.sqrt(3))


def test_difference_adds_variances_of_disjoint_groups():
    d = difference(ppi_mean(Y, YHAT, UNLABELED), naive_mean([0.5, 0.7]))
    assert d.mean == pytest.approx(0.63 - 0.6)
    assert d.se == pytest.approx(math.sqrt(0.0156825 + 0.01 / 2))  # σ̂²([0.5, 0.7]) = 0.01, over 2
    assert difference(ppi_mean([1.0], [1.0], []), naive_mean([1.0])).mean is None


def test_plan_labels_by_hand():
    # W = 0.2 → (W/2z)² = (0.1/1.959964)² = 0.00260318; σ²_Y = 0.25 → classical n = ⌈96.04⌉ = 97
    # PPI: σ²_f/N = 0.2/1000 = 0.0002 → room 0.00240318; σ²_r = 0.05 → ⌈20.81⌉ = 21
    plan = plan_labels(0.2, var_human=0.25, var_residual=0.05, var_judge=0.2, judged=1000)
    assert (plan.labels_classical, plan.labels_ppi, plan.judged) == (97, 21, 1000)
    assert plan.saving == pytest.approx(1 - 21 / 97)
    assert pytest.approx(0.00260318, abs=1e-8) == (0.1 / Z) ** 2
    # the judge's own term over budget: no number of labels reaches W with so few judge calls
    assert plan_labels(0.2, 0.25, 0.05, var_judge=0.2, judged=50).labels_ppi is None
    with pytest.raises(ValueError):
        plan_labels(0.0, 0.25, 0.05, 0.2, 10)
