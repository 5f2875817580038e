"""Statistics of the revision crossover ("Can We Believe AI Peer Review?"), pure numpy over per-paper arrays.

Gain per paper and Scorer = mean of the k final scores − mean of the k original scores; its direction
(+1 / 0 / −1) is the sign of (sum of the final integers − sum of the original integers), an exact integer
difference, so float rounding of two means can never turn a tie into ±1e-16. That equals the sign of the gain
only because both sides have the same k: callers pass (n papers × k) arrays per side, so unequal counts
cannot reach here. Noise of a paper's means from the unbiased per-paper variances S² (metrics.stats.
repeatability): e_o = S²_o / k for an original mean, e_Δ = (S²_o + S²_v) / k for a gain.

Every interval is a percentile interval over one paper draw (metrics.stats.bootstrap.resample_indices) that
the caller makes once per comparison group and passes to every quantity it compares (paired bootstrap).
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from peerlake.metrics.stats.bootstrap import LEVEL, _percentile_interval, resampled_mean_ci
from peerlake.metrics.stats.repeatability import paper_variances

MIN_PAPERS = 3  # a correlation over two papers is ±1 whatever they are
# Directions in table order: rows are Scorer x, columns Scorer y (seed S30: Luna rows, Haiku columns).
DIRECTIONS = (1, 0, -1)
ZERO_NOISE = "zero_noise"  # an unchanged final read by its original's scores: gain 0, noise variance 0
CASE_MIN_CHARS, CASE_MAX_CHARS = 70, 750  # the paper's rule: both texts of the shown block, whitespace normalised


def letter_pairs(letters) -> list[tuple[str, str]]:
    """Every unordered pair of role letters once, as (first, second) with the letters in REVERSE alphabetical
    order, so the source paper's L (Luna) / H (Haiku) give L − H: gaps read first − second, direction tables have the
    first as rows, and a Selector change goes from the first to the second ((LHL − LHH) − (LLL − LLH))."""
    ordered = sorted(set(letters), reverse=True)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]]


@dataclass(frozen=True)
class PaperGains:
    """Per-paper arrays (one entry per paper, in the order given)."""

    mean_original: np.ndarray
    mean_final: np.ndarray
    gain: np.ndarray
    direction: np.ndarray  # int: sign(sum_final − sum_original)
    noise_var_original: np.ndarray  # e_o = S²_o / k (nan when k < 2)
    noise_var_gain: np.ndarray  # e_Δ = (S²_o + S²_v) / k (nan when k < 2)


def paper_gains(original, final, unchanged=None) -> PaperGains:
    """original, final: (n papers × k) integer scores, the same k on both sides (the direction needs it).
    `unchanged` (n booleans, default none): papers whose final IS the original, its own scores read on both
    sides (unchanged_final = zero_noise). Their gain is exactly 0 and so is its noise variance: counting
    (S²_o + S²_o)/k there would subtract noise the gain does not have and inflate ρ_adj (a simulation with
    30 % such papers moved the median ρ_adj from 0.31 to 0.82; tests/metrics/revision/test_revision_unchanged.py)."""
    o, f = np.asarray(original, dtype=float), np.asarray(final, dtype=float)
    if o.ndim != 2 or o.shape != f.shape:
        raise ValueError(f"paper_gains: need two (papers × k) arrays of one shape, got {o.shape} and {f.shape}")
    if np.isnan(o).any() or np.isnan(f).any() or (o != np.round(o)).any() or (f != np.round(f)).any():
        raise ValueError("paper_gains: scores must be whole numbers (drop incomplete papers first)")
    n, k = o.shape
    # Integer sums below 2**53 are exact in float64: the difference is an exact integer.
    direction = np.sign(f.sum(axis=1) - o.sum(axis=1)).astype(int)
    if k >= 2 and n:
        s2_o, s2_f = paper_variances(o), paper_variances(f)
        e_o, e_d = s2_o / k, (s2_o + s2_f) / k
    else:  # one score per side has no variance; no papers, no values
        e_o = e_d = np.full(n, np.nan)
    mean_o = o.mean(axis=1) if k else np.full(n, np.nan)
    mean_f = f.mean(axis=1) if k else np.full(n, np.nan)
    if unchanged is not None:
        same = np.asarray(unchanged, dtype=bool)
        if same.shape != (n,):
            raise ValueError(f"paper_gains: `unchanged` needs one flag per paper ({n}), got shape {same.shape}")
        if (o[same] != f[same]).any():
            raise ValueError("paper_gains: an unchanged final reads its original's own scores (zero_noise)")
        e_d = np.where(same, 0.0, e_d)
    return PaperGains(mean_o, mean_f, mean_f - mean_o, direction, e_o, e_d)


def mean_gain_noise_sd(noise_var_gain) -> float:
    """Mean over papers of sqrt(e_Δ) (seed S31: per paper, then averaged); nan without papers."""
    e = np.asarray(noise_var_gain, dtype=float)
    e = e[~np.isnan(e)]
    return float(np.sqrt(e).mean()) if e.size else float("nan")


def mean_with_ci(values, indices: np.ndarray | None, *, level: float = LEVEL) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high) of per-paper values over the papers that have one (nan = none), the interval
    from the shared draw `indices` (rows of positions into `values`). No paper: (0, nan, nan, nan)."""
    v = np.asarray(values, dtype=float)
    present = v[~np.isnan(v)]
    if not present.size:
        return 0, float("nan"), float("nan"), float("nan")
    mean = float(present.mean())
    if indices is None:
        return int(present.size), mean, float("nan"), float("nan")
    if np.ptp(present) == 0:
        # Constant values: every resample mean is that value up to the last bit of a sum, which could put
        # the interval a hair off its own estimate.
        return int(present.size), mean, mean, mean
    lo, hi = resampled_mean_ci(v, indices, level=level)
    return int(present.size), mean, lo, hi


@dataclass(frozen=True)
class Directions:
    """The 3×3 table (rows x = +, 0, −; columns y = +, 0, −) and its summaries."""

    table: np.ndarray
    n_papers: int
    n_same: int  # the diagonal, both 0 included
    n_reversal: int  # + against − either way
    n_any_zero: int  # at least one of the two is 0

    def share(self, count: int) -> float:
        return count / self.n_papers if self.n_papers else float("nan")


def direction_table(direction_x, direction_y) -> Directions:
    """Counts of (direction under Scorer x, direction under Scorer y) over the same papers."""
    dx, dy = np.asarray(direction_x, dtype=int), np.asarray(direction_y, dtype=int)
    if dx.shape != dy.shape or dx.ndim != 1:
        raise ValueError(f"direction_table: need two equal-length vectors, got {dx.shape} and {dy.shape}")
    if not np.isin(dx, DIRECTIONS).all() or not np.isin(dy, DIRECTIONS).all():
        raise ValueError("direction_table: directions are +1, 0 or -1")
    table = np.array([[int(((dx == a) & (dy == b)).sum()) for b in DIRECTIONS] for a in DIRECTIONS])
    return Directions(table, int(dx.size), int(np.trace(table)), int(table[0, 2] + table[2, 0]),
                      int(((dx == 0) | (dy == 0)).sum()))


def pearson(x, y) -> float:
    """Pearson r of paired per-paper values; nan below MIN_PAPERS or when a side is constant (undefined)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size < MIN_PAPERS or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(stats.pearsonr(a, b).statistic)


@dataclass(frozen=True)
class NoiseAdjusted:
    n_papers: int
    r_observed: float
    rho_adj: float  # nan when an adjusted variance is ≤ 0
    v_x: float
    v_y: float
    e_x: float
    e_y: float
    c: float
    ci_low: float
    ci_high: float
    n_resamples: int
    n_undefined: int  # resamples with an adjusted variance ≤ 0
    n_out_of_range: int  # resamples with a defined ρ_adj outside [−1, 1] (kept, never clipped)


def _rho_adj(x: np.ndarray, y: np.ndarray, ex: np.ndarray, ey: np.ndarray):
    """Row-wise over the last axis: ρ_adj = c / sqrt((v_x − e_x)(v_y − e_y)), v and c with the n − 1 denominator
    (the source paper's proposal, consistent with S²), e = mean of the papers' noise variances. Also returns v, e, c."""
    n = x.shape[-1]
    dx, dy = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    vx, vy = (dx * dx).sum(axis=-1) / (n - 1), (dy * dy).sum(axis=-1) / (n - 1)
    c = (dx * dy).sum(axis=-1) / (n - 1)
    mx, my = ex.mean(axis=-1), ey.mean(axis=-1)
    ax, ay = vx - mx, vy - my
    defined = (ax > 0) & (ay > 0)
    rho = np.where(defined, c / np.sqrt(np.where(defined, ax * ay, 1.0)), np.nan)
    return rho, vx, vy, mx, my, c


def noise_adjusted_correlation(x, y, ex, ey, indices: np.ndarray | None, *, level: float = LEVEL) -> NoiseAdjusted:
    """The paper's noise-adjusted correlation for two Scorers on one quantity over the same papers:
    x, y per-paper values (original means or
    gains), ex, ey their per-paper noise variances. The interval is the percentile interval of ρ_adj over the
    resamples of `indices` where it is defined (out-of-range values included, unclipped); the counts say how
    many resamples were undefined or out of range. Below MIN_PAPERS: nothing is estimated (nan, counts 0)."""
    arrays = [np.asarray(a, dtype=float) for a in (x, y, ex, ey)]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise ValueError("noise_adjusted_correlation: x, y, ex, ey must be equal-length vectors")
    if any(np.isnan(a).any() for a in arrays):
        raise ValueError("noise_adjusted_correlation: missing values (keep only papers complete for both Scorers)")
    n = arrays[0].size
    n_res = 0 if indices is None else int(indices.shape[0])
    nan = float("nan")
    if n < MIN_PAPERS:
        return NoiseAdjusted(n, nan, nan, nan, nan, nan, nan, nan, nan, nan, n_res, 0, 0)
    rho, vx, vy, mx, my, c = (float(v) for v in _rho_adj(*arrays))
    lo = hi = nan
    n_undefined = n_out = 0
    if indices is not None:
        boot = _rho_adj(*(a[indices] for a in arrays))[0]
        defined = boot[~np.isnan(boot)]
        n_undefined = int(boot.size - defined.size)
        n_out = int((np.abs(defined) > 1).sum())
        if defined.size:
            lo, hi = _percentile_interval(defined, level)
    return NoiseAdjusted(n, pearson(arrays[0], arrays[1]), rho, vx, vy, mx, my, c, lo, hi, n_res, n_undefined, n_out)


def jaccard(a: set, b: set) -> float:
    """|A ∩ B| / |A ∪ B|, and 1 when both are empty (two Selectors that both accept nothing agree)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


@dataclass(frozen=True)
class SelectorAgreement:
    n_papers: int
    n_candidates: int
    n_accepted_a: int
    n_accepted_b: int
    n_both_accept: int
    n_decisions_differ: int
    n_both_reject: int
    n_identical_papers: int  # papers where the two accepted sets are equal (the same final text)
    mean_jaccard: float


def selector_agreement(candidates: Sequence[set], accepted_a: Sequence[set],
                       accepted_b: Sequence[set]) -> SelectorAgreement:
    """Two Selectors over one Writer's diffs, paper by paper (aligned sequences of diff-id sets)."""
    if not len(candidates) == len(accepted_a) == len(accepted_b):
        raise ValueError("selector_agreement: one candidate set and two accepted sets per paper")
    for cand, a, b in zip(candidates, accepted_a, accepted_b, strict=True):
        if not (a | b) <= cand:
            raise ValueError(f"selector_agreement: accepted diffs outside the candidates: {sorted((a | b) - cand)}")
    both = sum(len(a & b) for a, b in zip(accepted_a, accepted_b, strict=True))
    differ = sum(len(a ^ b) for a, b in zip(accepted_a, accepted_b, strict=True))
    reject = sum(len(c - (a | b)) for c, a, b in zip(candidates, accepted_a, accepted_b, strict=True))
    js = [jaccard(a, b) for a, b in zip(accepted_a, accepted_b, strict=True)]
    return SelectorAgreement(len(candidates), sum(len(c) for c in candidates), sum(len(a) for a in accepted_a),
                             sum(len(b) for b in accepted_b), both, differ, reject,
                             sum(a == b for a, b in zip(accepted_a, accepted_b, strict=True)),
                             float(np.mean(js)) if js else float("nan"))


# Case strata ("Can We Believe AI Peer Review?") from the two directions: x is the row Scorer, y the column Scorer.
STRATA = ("x+/y-", "x+/y+", "x-/y-", "x-/y+", "any_zero", "x+/y0")


def strata(direction_x: int, direction_y: int) -> list[str]:
    """The strata a paper belongs to; 'x+/y0' is a sub-stratum of 'any_zero' (the source paper's HH case)."""
    out = []
    if direction_x == 0 or direction_y == 0:
        out.append("any_zero")
        if direction_x == 1:
            out.append("x+/y0")
    else:
        out.append(f"x{'+' if direction_x > 0 else '-'}/y{'+' if direction_y > 0 else '-'}")
    return out


def case_order(paper_id: str) -> str:
    """The fixed sort key within a stratum: the SHA-256 of the paper id (no seed, no run order)."""
    return hashlib.sha256(paper_id.encode("utf-8")).hexdigest()


def normalise_whitespace(text: str | None) -> str:
    return " ".join((text or "").split())


def pick_block(diffs: Sequence[dict]) -> tuple[dict | None, str | None]:
    """The block to show for a paper: the first ACCEPTED diff in (page, diff_id) order whose original and
    revised texts both have 70–750 characters after whitespace normalisation ('length_70_750'), else the first
    accepted one ('first_accepted'); (None, None) when nothing was accepted."""
    accepted = sorted((d for d in diffs if d.get("accepted")),
                      key=lambda d: (d.get("page") is None, d.get("page") or 0, str(d.get("diff_id"))))
    for d in accepted:
        if all(CASE_MIN_CHARS <= len(normalise_whitespace(d.get(k))) <= CASE_MAX_CHARS
               for k in ("original", "revised")):
            return d, "length_70_750"
    return (accepted[0], "first_accepted") if accepted else (None, None)
