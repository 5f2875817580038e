"""Losses and risks of a predicted score distribution against independent target scores."""

import numpy as np


def _targets(z) -> np.ndarray:
    z = np.asarray(z)
    if np.any((z < 1) | (z > 10)) or np.any(z != np.round(z)):
        raise ValueError(f"target scores must be integers in 1..10, got {z.tolist()}")
    return z.astype(int)


def collision_rate(z) -> float:
    """(1/(m(m−1))) Σ_{j≠l} 1[Z_j = Z_l]: an unbiased estimate of ‖p‖² from m ≥ 2 independent scores."""
    z = _targets(z)
    m = z.size
    if m < 2:
        raise ValueError(f"collision rate needs at least 2 scores, got {m}")
    counts = np.bincount(z, minlength=11)
    return float((counts * (counts - 1)).sum() / (m * (m - 1)))


def debiased_risk(q, z) -> float:
    """R̂(q) = Σ_s q(s)² − (2/m) Σ_j q(Z_j) + (1/(m(m−1))) Σ_{j≠l} 1[Z_j = Z_l]; E R̂ = ‖q − p‖²."""
    q = np.asarray(q, dtype=float)
    z = _targets(z)
    return float((q ** 2).sum() - 2.0 * q[z - 1].mean() + collision_rate(z))


def brier_loss(q, z) -> float:
    """Mean over targets of Σ_s (q(s) − 1[s = Z_j])²; differs from R̂ by a term free of q."""
    q = np.asarray(q, dtype=float)
    z = _targets(z)
    return float((q ** 2).sum() - 2.0 * q[z - 1].mean() + 1.0)


def direct_sampling_risk(norm2: float, n: int) -> float:
    """E‖p̂_n − p‖² = (1 − ‖p‖²)/n for the empirical distribution of n independent full reviews."""
    if n < 1:
        raise ValueError(f"direct sampling needs n >= 1 reviews, got {n}")
    return (1.0 - norm2) / n
