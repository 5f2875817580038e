"""Repeatability of one reviewer configuration: how much a paper's scores vary across samples.

The within-paper variance V̂ and SD sqrt(V̂) live only here; the repeatability, budget and
granularity marts all call these functions.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.budgets import CERTIFIED_PAIRS_RULE, certified_pairs
from peerlake.metrics.stats.keys import key_columns, key_dict, keyed_columns, score_rounds, typed_frame

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


DRIFT_COLUMNS = {"reviewer_config": "string", "n_papers_drift": "int64", "drift_mean_early": "float64",
                 "drift_mean_late": "float64", "drift_shift": "float64", "drift_ci_low": "float64",
                 "drift_ci_high": "float64"}
VARIANCE_COLUMNS = {"reviewer_config": "string", "n_papers": "int64", "n_papers_repeated": "int64",
                    "reviews_per_repeated_paper_min": "Int64", "variance_hat": "float64",
                    "within_paper_sd": "float64", "n_certified_pairs": "int64",
                    "certified_pairs_rule": "string"}


def drift_table(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: late − early rounds with a paired paper-bootstrap interval."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in score_rounds(scores).items():
        d = drift_bootstrap(list(papers.values()))
        rows.append({**key_dict(keys, key), "n_papers_drift": d.n_papers,
                     "drift_mean_early": d.mean_early, "drift_mean_late": d.mean_late,
                     "drift_shift": d.shift, "drift_ci_low": d.ci_low, "drift_ci_high": d.ci_high})
    return typed_frame(rows, keyed_columns(scores, DRIFT_COLUMNS))


def variance_table(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: V̂, sqrt(V̂) and the M the certified budget may use.

    V̂ pools the repeated papers (≥ 2 parsed scores); M = N·⌊n_min/2⌋ over those papers
    (metrics.stats.budgets.certified_pairs: Σ⌊n_i/2⌋ would be anti-conservative)."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in score_rounds(scores).items():
        repeated = [s for s in papers.values() if len(s) >= 2]
        rows.append({**key_dict(keys, key), "n_papers": len(papers), "n_papers_repeated": len(repeated),
                     "reviews_per_repeated_paper_min": min((len(s) for s in repeated), default=None),
                     "variance_hat": pooled_variance(repeated), "within_paper_sd": within_paper_sd(repeated),
                     "n_certified_pairs": certified_pairs(len(s) for s in repeated),
                     "certified_pairs_rule": CERTIFIED_PAIRS_RULE})
    return typed_frame(rows, keyed_columns(scores, VARIANCE_COLUMNS))
