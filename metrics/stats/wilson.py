"""The Wilson score interval for a proportion (Wilson 1927), from the formula so that p̂ may be
fractional: a detection rate averaged over judge repeats is not k/n for an integer k. The source paper's
Figure 3 uses it with n = the items at a distance (not items × repeats: repeats of one judgment are
not independent samples) and z = 1.96.

    centre = (p̂ + z²/2n) / (1 + z²/n)
    half   = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²)
"""

import math

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal (scipy's binomtest uses it)


def wilson_interval(p_hat: float | None, n: int | None, z: float = Z95) -> tuple[float, float] | None:
    """(lo, hi) of the Wilson interval, or None when there is nothing to bound (n = 0, no p̂)."""
    if p_hat is None or n is None or n <= 0 or math.isnan(p_hat):
        return None
    if not 0.0 <= p_hat <= 1.0:
        raise ValueError(f"p_hat must be a proportion in [0, 1], got {p_hat}")
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p_hat + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p_hat * (1.0 - p_hat) / n + z2 / (4 * n * n))
    # clip the float noise at the ends (p̂ = 0 gives lo = 1e-17, not 0)
    return max(0.0, centre - half), min(1.0, centre + half)
