"""Repeatability of one reviewer configuration: how much a paper's scores vary across samples.

The within-paper variance V̂ and SD sqrt(V̂) live only here; the repeatability, budget and
granularity marts all call these functions.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.stats.bootstrap import bootstrap_mean_ci

DRIFT_RESAMPLES = 10_000
DRIFT_SEED = 20261129


def paper_variances(scores: Sequence[Sequence[float]]) -> np.ndarray:
    """Unbiased variance S_i² of each paper's scores; papers with fewer than 2 scores are left out."""
    return np.array([np.var(s, ddof=1) for s in scores if len(s) >= 2], dtype=float)


def pooled_variance(scores: Sequence[Sequence[float]]) -> float:
    """V̂ = mean over papers (with ≥ 2 scores) of S_i²; nan when there is no such paper (no
    estimate exists, and 0 would claim a perfectly repeatable reviewer)."""
    v = paper_variances(scores)
    return float(v.mean()) if v.size else float("nan")


def within_paper_sd(scores: Sequence[Sequence[float]]) -> float:
    """sqrt(V̂): the root of the mean unbiased per-paper variance (not the mean of per-paper SDs);
    nan when no paper has two scores."""
    return float(np.sqrt(pooled_variance(scores)))


def pairwise_agreement(scores: Sequence[float]) -> float:
    """Share of the n(n−1)/2 score pairs of one paper that are exactly equal."""
    s = np.asarray(scores, dtype=float)
    if s.size < 2:
        raise ValueError(f"pairwise agreement needs at least 2 scores, got {s.size}")
    equal = s[:, None] == s[None, :]
    return float((equal.sum() - s.size) / (s.size * (s.size - 1)))


@dataclass(frozen=True)
class Drift:
    """Late minus early rounds: mean over papers, and a paired paper-bootstrap percentile interval."""

    mean_early: float
    mean_late: float
    shift: float
    ci_low: float
    ci_high: float
    n_papers: int


def drift_bootstrap(rounds: Sequence[Sequence[float]], *, n_resamples: int = DRIFT_RESAMPLES,
                    seed: int = DRIFT_SEED, level: float = 0.95) -> Drift:
    """Each paper's scores in round order: early = rounds 1..⌊n/2⌋, late = rounds ⌊n/2⌋+1..n.

    The per-paper difference (late mean − early mean) keeps the pairing; resampling papers with
    replacement (fixed seed, so the interval is reproducible) gives the percentile interval."""
    early, late = [], []
    for s in rounds:
        s = np.asarray(s, dtype=float)
        if s.size < 2:
            continue
        h = s.size // 2
        early.append(s[:h].mean())
        late.append(s[h:].mean())
    if not early:
        nan = float("nan")
        return Drift(nan, nan, nan, nan, nan, 0)
    early_a, late_a = np.array(early), np.array(late)
    diff = late_a - early_a
    lo, hi = bootstrap_mean_ci(diff, n_resamples=n_resamples, seed=seed, level=level)
    return Drift(float(early_a.mean()), float(late_a.mean()), float(diff.mean()),
                 float(lo), float(hi), int(diff.size))
