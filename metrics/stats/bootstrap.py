"""The one paper-level bootstrap: a percentile interval for the mean of per-paper values.

Every interval in the marts (drift, granularity shifts, distribution risks and their differences) is
the mean over papers of one number per paper. A paired comparison of two arms passes the per-paper
difference, which resamples both arms with the same papers — exactly the paired bootstrap. The draw
is fixed by the seed: n_resamples rows of n paper indices from numpy's default_rng(seed).integers.
"""

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
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, v.size, size=(n_resamples, v.size))
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(v[idx].mean(axis=1), [tail, 100 - tail])
    return float(lo), float(hi)
