"""Small statistics shared by the distribution and granularity marts."""

import numpy as np
from scipy.stats import mannwhitneyu


def acceptance_auc(score, accepted) -> float | None:
    """P(score of an accepted paper > a rejected one), ties counting ½; None without both classes."""
    score = np.asarray(score, dtype=float)
    accepted = np.asarray(accepted, dtype=bool)
    pos, neg = score[accepted], score[~accepted]
    if pos.size == 0 or neg.size == 0:
        return None
    # Mann–Whitney U counts a tie as ½, so U / (n₊ n₋) is exactly that AUC.
    u = mannwhitneyu(pos, neg, alternative="two-sided").statistic
    return float(u / (pos.size * neg.size))


def bootstrap_mean_ci(values, n_boot: int = 10_000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the mean over papers resampled with replacement."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, v.size, size=(n_boot, v.size))
    means = v[idx].mean(1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)
