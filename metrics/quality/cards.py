"""The statistics of a judge card: how far a judge's answers can be trusted as an instrument.

"Reliability without Validity" (2026) shows raw agreement overstating chance-corrected agreement by
33–41 points across 21 judges, so a card reports only chance-corrected figures, each with a 95 %
interval:

- Krippendorff's α (the `krippendorff` package) of a raters × items table, nominal, ordinal or interval;
- Cohen's κ of two raters' labels (unweighted, or linear / quadratic weights for an ordinal scale);
- ICC(1), the one-way random-effects intraclass correlation of scores repeated within subjects, with
  the F-based interval of Shrout & Fleiss (1979) (scipy's one-way ANOVA F and F quantiles);
- a cluster bootstrap (resampling whole reviews, whose items are not independent) for α and κ, and
  Fisher's z interval for a correlation.

Undefined values are nan, never 0: 0 would read as "no better than chance".
"""

from collections.abc import Callable, Sequence

import krippendorff
import numpy as np
from scipy import stats

from peerlake.metrics.stats.bootstrap import resample_indices

LEVEL = 0.95
LEVELS = ("nominal", "ordinal", "interval")
WEIGHTS = (None, "linear", "quadratic")
NAN = float("nan")


def codes(labels: Sequence, level: str = "nominal") -> tuple[np.ndarray, list]:
    """Labels (None = missing) → float codes and the sorted categories. Ordinal and interval labels must
    be numbers and keep their values (α's distances use them); nominal labels become 0, 1, … by name."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r}: use one of {', '.join(LEVELS)}")
    present = [x for x in labels if x is not None and not (isinstance(x, float) and np.isnan(x))]
    if level != "nominal":
        values = np.array([NAN if x is None else float(x) for x in labels], dtype=float)
        return values, sorted({float(x) for x in present})
    cats = sorted({str(x) for x in present})
    index = {c: i for i, c in enumerate(cats)}
    return np.array([NAN if x is None or (isinstance(x, float) and np.isnan(x)) else float(index[str(x)])
                     for x in labels], dtype=float), cats


def alpha(data, level: str = "nominal") -> float:
    """Krippendorff's α of a raters × items array of numeric codes (nan = no value). nan when it is
    undefined: no item with two values, or a single value overall (expected disagreement 0)."""
    arr = np.asarray(data, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"alpha: expected raters × items, got shape {arr.shape}")
    if level not in LEVELS:
        raise ValueError(f"level {level!r}: use one of {', '.join(LEVELS)}")
    pairable = arr[:, (~np.isnan(arr)).sum(axis=0) >= 2]
    if pairable.size == 0 or np.unique(pairable[~np.isnan(pairable)]).size < 2:
        return NAN
    return float(krippendorff.alpha(reliability_data=pairable, level_of_measurement=level))


def cohen_kappa(a, b, weights: str | None = None, categories: Sequence | None = None) -> float:
    """Cohen's κ of two raters' numeric codes on the same items (pairs with a nan are left out).
    κ = (p_o − p_e) / (1 − p_e), or with weights w_ij (|i−j| or (i−j)² over the category ranks)
    κ_w = 1 − Σ w·observed / Σ w·expected. nan without pairs or when p_e = 1 (both constant, equal)."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights {weights!r}: use none, linear or quadratic")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"cohen_kappa: {x.size} labels paired with {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size == 0:
        return NAN
    cats = np.array(sorted(set(categories) if categories is not None else set(x) | set(y)), dtype=float)
    k = cats.size
    table = np.zeros((k, k))
    np.add.at(table, (np.searchsorted(cats, x), np.searchsorted(cats, y)), 1)
    observed = table / table.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    ranks = np.arange(k)
    if weights is None:
        w = (ranks[:, None] != ranks[None, :]).astype(float)
    else:
        w = np.abs(ranks[:, None] - ranks[None, :]).astype(float) ** (1 if weights == "linear" else 2)
    denominator = (w * expected).sum()
    return NAN if denominator == 0 else float(1 - (w * observed).sum() / denominator)


def icc1(groups: Sequence[Sequence[float]], level: float = LEVEL) -> tuple[float, float, float]:
    """ICC(1): one-way random effects, single measurement, of scores repeated within subjects (each a
    group; groups of fewer than 2 scores are left out). From the one-way ANOVA F = MSB / MSW
    (scipy.stats.f_oneway), ICC = (F − 1) / (F + n₀ − 1) with n₀ the average group size (for unequal
    sizes (N − Σnᵢ²/N) / (g − 1), Searle's n₀), and the Shrout & Fleiss (1979) interval from F's
    quantiles. (estimate, low, high); nan when fewer than 2 groups or every score equal; 1 (an interval
    of 1) when scores vary between groups only (F is infinite: repeats agree exactly)."""
    gs = [np.asarray(g, dtype=float) for g in groups if len(g) >= 2]
    n_total, g = sum(x.size for x in gs), len(gs)
    if g < 2 or np.ptp(np.concatenate(gs)) == 0:
        return NAN, NAN, NAN
    if all(np.ptp(x) == 0 for x in gs):
        return 1.0, 1.0, 1.0
    f = float(stats.f_oneway(*gs).statistic)
    n0 = (n_total - sum(x.size ** 2 for x in gs) / n_total) / (g - 1)
    df1, df2 = g - 1, n_total - g
    tail = (1 + level) / 2
    f_low = f / stats.f.ppf(tail, df1, df2)
    f_high = f * stats.f.ppf(tail, df2, df1)
    return (f - 1) / (f + n0 - 1), (f_low - 1) / (f_low + n0 - 1), (f_high - 1) / (f_high + n0 - 1)


def fisher_ci(r: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Fisher's z interval of a correlation r over n pairs: tanh(atanh r ± z/√(n − 3)); nan below 4 pairs."""
    if n < 4 or r is None or np.isnan(r):
        return NAN, NAN
    if abs(r) >= 1:
        return float(r), float(r)
    z, half = np.arctanh(r), stats.norm.ppf((1 + level) / 2) / np.sqrt(n - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def cluster_bootstrap(statistic: Callable[[np.ndarray], float], clusters: Sequence, *, n_resamples: int,
                      seed: int, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of `statistic(columns)` over resamples of whole clusters (reviews) with
    replacement: `clusters[i]` is the cluster of item (column) i, and the statistic gets the column
    indices a resample drew. Resamples where the statistic is undefined (nan) are left out; nan
    with fewer than 2 clusters (every resample would be the sample itself: no interval, not a point) or
    when fewer than half the resamples are defined."""
    labels = np.asarray(clusters)
    names, inverse = np.unique(labels, return_inverse=True)
    if names.size < 2 or n_resamples < 1:
        return NAN, NAN
    members = [np.flatnonzero(inverse == i) for i in range(names.size)]
    # the clusters drawn with replacement, as every peerlake interval draws them (one implementation)
    draws = resample_indices(names.size, n_resamples=n_resamples, seed=seed)
    values = [statistic(np.concatenate([members[i] for i in drawn])) for drawn in draws]
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size < n_resamples / 2:
        return NAN, NAN
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)
