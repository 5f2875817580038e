"""Quick (probe-only) and Standard (probe + two full reviews) estimates of a paper's score distribution.

A distribution is a length-10 array over the scores 1..10 (index s − 1).
"""

import numpy as np

SCORES = np.arange(1, 11)
FLOOR = 1e-9  # keeps a zero-probability candidate finite under r^(1/T)


def _check(r: np.ndarray, what: str) -> np.ndarray:
    r = np.asarray(r, dtype=float)
    if r.shape != (10,):
        raise ValueError(f"{what}: expected 10 probabilities for scores 1..10, got shape {r.shape}")
    if np.any(r < 0) or not np.all(np.isfinite(r)):
        raise ValueError(f"{what}: probabilities must be finite and non-negative, got {r.tolist()}")
    return r


def sharpen(r, present, T: float) -> np.ndarray:
    """r̃(s) ∝ max(r(s), 1e−9)^(1/T) over the returned candidates (`present`); 0 elsewhere."""
    r = _check(r, "sharpen")
    present = np.asarray(present, dtype=bool)
    if T <= 0:
        raise ValueError(f"sharpen: temperature T must be > 0, got {T}")
    if not present.any():
        raise ValueError("sharpen: no score among the returned candidates")
    w = np.where(present, np.maximum(r, FLOOR) ** (1.0 / T), 0.0)
    return w / w.sum()


def affine_move(q, a0: float, b0: float) -> np.ndarray:
    """Move each score s to x = clip(a0 + b0·s, 1, 10), splitting its mass linearly between ⌊x⌋ and ⌈x⌉."""
    q = _check(q, "affine_move")
    out = np.zeros(10)
    x = np.clip(a0 + b0 * SCORES, 1.0, 10.0)
    # Rounding guards grid values like −1.8 + 1.1·s landing a hair off an integer.
    x = np.round(x, 12)
    lo, hi = np.floor(x).astype(int), np.ceil(x).astype(int)
    w_lo = np.where(hi == lo, 1.0, hi - x)  # weight ⌈x⌉ − x on ⌊x⌋; all of it when x is an integer
    np.add.at(out, lo - 1, q * w_lo)
    np.add.at(out, hi - 1, q * (1.0 - w_lo))
    return out


def quick(r, present, T: float, a0: float, b0: float) -> np.ndarray:
    """q_Q: sharpen/flatten the probe's distribution, then the affine move."""
    return affine_move(sharpen(r, present, T), a0, b0)


def empirical(scores) -> np.ndarray:
    """The empirical distribution of integer scores 1..10."""
    s = np.asarray(scores)
    if s.size == 0:
        raise ValueError("empirical: no scores")
    if np.any((s < 1) | (s > 10)) or np.any(s != np.round(s)):
        raise ValueError(f"empirical: scores must be integers in 1..10, got {s.tolist()}")
    return np.bincount(s.astype(int) - 1, minlength=10)[:10] / s.size


def standard(q_quick, two_reviews, w: float) -> np.ndarray:
    """q_S = w·p̂₂ + (1 − w)·q_Q, p̂₂ the empirical distribution of two full reviews."""
    if not 0 <= w <= 1:
        raise ValueError(f"standard: weight w must be in [0, 1], got {w}")
    return w * empirical(two_reviews) + (1 - w) * _check(q_quick, "standard")
