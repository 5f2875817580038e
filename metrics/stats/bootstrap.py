"""The one paper-level bootstrap: a percentile interval for the mean of per-paper values.

Every interval in the marts (drift, granularity shifts, distribution risks and their differences) is
the mean over papers of one number per paper. A paired comparison of two arms passes the per-paper
difference, which resamples both arms with the same papers — exactly the paired bootstrap. The draw
is fixed by the seed: n_resamples rows of n paper indices from numpy's default_rng(seed).integers.
"""

import functools

import numpy as np

N_RESAMPLES = 10_000
LEVEL = 0.95


def bootstrap_mean_ci(values, *, n_resamples: int = N_RESAMPLES, seed: int = 0,
                      level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean of `values` over papers resampled with replacement.

    (nan, nan) without values: there is no interval to report, and 0 would read as a real one."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"bootstrap_mean_ci: expected one value per paper, got shape {v.shape}")
    if not 0 < level < 1:
        raise ValueError(f"bootstrap_mean_ci: level must be in (0, 1), got {level}")
    if v.size == 0:
        return float("nan"), float("nan")
    idx = resample_indices(v.size, n_resamples=n_resamples, seed=seed)
    return _percentile_interval(v[idx].mean(axis=1), level)


def resample_indices(n: int, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> np.ndarray:
    """The draw behind every interval: n_resamples rows of n paper indices (with replacement) from
    default_rng(seed).integers. Share the array to give several statistics one bootstrap world.

    The array is read-only and the last one drawn is kept: the marts draw the same (n, seed) once
    per configuration (ten configurations × 10,000 resamples × 10,000 papers is 10⁹ draws)."""
    return _draw(n, n_resamples, seed)


@functools.lru_cache(maxsize=1)
def _draw(n: int, n_resamples: int, seed: int) -> np.ndarray:
    idx = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    idx.setflags(write=False)
    return idx


def bootstrap_mean_cis(values: np.ndarray, *, n_resamples: int = N_RESAMPLES, seed: int = 0,
                       level: float = LEVEL) -> list[tuple[float, float]]:
    """bootstrap_mean_ci for each column of `values` (papers × statistics, one draw for all).

    A resample's mean is (how often it drew each paper) · values / n: one matrix product for every
    column instead of a gather per column, equal to bootstrap_mean_ci's up to float rounding (the
    same draw, the same papers; the sums are added in another order)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"bootstrap_mean_cis: expected papers × statistics, got shape {v.shape}")
    n = v.shape[0]
    if n == 0:
        return [(float("nan"), float("nan"))] * v.shape[1]
    idx = resample_indices(n, n_resamples=n_resamples, seed=seed)
    means = np.empty((idx.shape[0], v.shape[1]))
    step = max(1, (1 << 22) // n)  # resamples per block: a multiplicity block of ~32 MB
    for lo in range(0, idx.shape[0], step):
        block = idx[lo:lo + step]
        rows = np.repeat(np.arange(block.shape[0]), n)
        times = np.bincount(rows * n + block.ravel(), minlength=block.shape[0] * n).astype(float)
        times = times.reshape(block.shape[0], n)
        means[lo:lo + step] = times @ v / n
    return [_percentile_interval(means[:, j], level) for j in range(v.shape[1])]


def resampled_mean_ci(values, indices: np.ndarray, *, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean over the papers each row of `indices` drew, counting only the
    papers with a value (nan = this statistic has none for the paper). Several statistics over one
    set of papers, each missing on some, then share one draw (metrics.quality); rows that drew no
    paper with a value are left out. With no nan it equals bootstrap_mean_ci on the same draw."""
    v = np.asarray(values, dtype=float)
    has = ~np.isnan(v)
    if not has.any():
        return float("nan"), float("nan")
    counts = has[indices].sum(axis=1)
    sums = np.where(has, v, 0.0)[indices].sum(axis=1)
    keep = counts > 0
    return _percentile_interval(sums[keep] / counts[keep], level)


def _percentile_interval(means: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)
