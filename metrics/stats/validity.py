"""Validity against humans: each paper's mean AI score against its mean human score H_i."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Agreement:
    n_papers: int
    pearson: float
    spearman: float
    mae: float
    rmse: float


def agreement_with_humans(ai: Sequence[float], human: Sequence[float]) -> Agreement:
    """Pearson, Spearman, MAE, RMSE over papers; correlations are nan when either side is constant
    or there are fewer than 2 papers (scipy would warn and return nan anyway)."""
    x, y = np.asarray(ai, dtype=float), np.asarray(human, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"ai and human scores differ in length: {x.size} vs {y.size}")
    nan = float("nan")
    if x.size == 0:
        return Agreement(0, nan, nan, nan, nan)
    err = x - y
    mae, rmse = float(np.abs(err).mean()), float(np.sqrt((err ** 2).mean()))
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Agreement(int(x.size), nan, nan, mae, rmse)
    return Agreement(int(x.size), float(stats.pearsonr(x, y).statistic),
                     float(stats.spearmanr(x, y).statistic), mae, rmse)


def acceptance_auc(scores: Sequence[float], accepted: Sequence[bool]) -> float:
    """P(score of an accepted paper > score of a rejected one), tied pairs counting ½.

    This is the Mann–Whitney U of the accepted group over n_pos·n_neg (scipy's U counts ties ½).
    The one AUC of the project (validity, distribution estimation). Without an accepted *and* a
    rejected paper there is no pair to compare, so the result is nan (a null in the marts) — never
    0.5, which would read as "measured, no better than chance"."""
    s = np.asarray(scores, dtype=float)
    a = np.asarray(accepted, dtype=bool)
    pos, neg = s[a], s[~a]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    u = stats.mannwhitneyu(pos, neg, alternative="two-sided", method="asymptotic").statistic
    return float(u / (pos.size * neg.size))
