"""Does a forced-decimal score differ from the integer one? Paired paper-level comparisons."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Granularity:
    n_papers: int  # papers with at least one valid score under both protocols
    mean_shift: float  # mean over papers of (decimal mean − integer mean)
    mean_shift_ci_low: float
    mean_shift_ci_high: float
    within_sd_integer: float | None  # sqrt(mean S_i²) over papers with ≥ 2 scores
    within_sd_decimal: float | None
    n_papers_human: int
    mae_integer: float | None  # mean |paper mean − H_i|
    mae_decimal: float | None
    mae_change: float | None  # decimal − integer
    mae_change_ci_low: float | None
    mae_change_ci_high: float | None


def within_paper_sd(per_paper_scores: list[np.ndarray]) -> float | None:
    """sqrt(V̂), V̂ the mean unbiased within-paper variance over papers with at least two scores."""
    v = [np.var(s, ddof=1) for s in per_paper_scores if len(s) >= 2]
    return float(np.sqrt(np.mean(v))) if v else None


def paired_bootstrap(stat, n: int, n_boot: int, seed: int) -> tuple[float, float]:
    """95% percentile interval of stat(idx) over papers resampled with replacement (same idx for both arms)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    draws = np.array([stat(row) for row in idx])
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def compare(integer: dict[str, np.ndarray], decimal: dict[str, np.ndarray],
            human: dict[str, float] | None = None, n_boot: int = 10_000, seed: int = 0) -> Granularity:
    """Scores per paper under each protocol (valid scores only) and H_i where known."""
    papers = sorted(p for p in integer.keys() & decimal.keys() if len(integer[p]) and len(decimal[p]))
    if not papers:
        raise ValueError("no paper has valid scores under both the integer and the decimal protocol")
    var = lambda s: np.var(s, ddof=1) if len(s) >= 2 else np.nan  # noqa: E731
    human = human or {}
    return compare_paper_summaries(
        [np.mean(integer[p]) for p in papers], [np.mean(decimal[p]) for p in papers],
        [var(integer[p]) for p in papers], [var(decimal[p]) for p in papers],
        [human.get(p, np.nan) for p in papers], n_boot=n_boot, seed=seed)


def compare_paper_summaries(mean_integer, mean_decimal, var_integer, var_decimal, human,
                            n_boot: int = 10_000, seed: int = 0) -> Granularity:
    """The same from per-paper means and unbiased variances (NaN: fewer than two scores) and H_i (NaN: none)."""
    mi, md = np.asarray(mean_integer, float), np.asarray(mean_decimal, float)
    vi, vd = np.asarray(var_integer, float), np.asarray(var_decimal, float)
    h_all = np.asarray(human, float)
    if mi.size == 0 or mi.shape != md.shape:
        raise ValueError(f"need paired per-paper means, got {mi.size} integer and {md.size} decimal")
    diff = md - mi
    lo, hi = paired_bootstrap(lambda idx: diff[idx].mean(), len(diff), n_boot, seed)
    hp = np.flatnonzero(np.isfinite(h_all))
    mae_i = mae_d = change = c_lo = c_hi = None
    if hp.size:
        h = h_all[hp]
        ei, ed = np.abs(mi[hp] - h), np.abs(md[hp] - h)
        mae_i, mae_d = float(ei.mean()), float(ed.mean())
        change = mae_d - mae_i
        c_lo, c_hi = paired_bootstrap(lambda idx: ed[idx].mean() - ei[idx].mean(), hp.size, n_boot, seed + 1)
    sd = lambda v: float(np.sqrt(np.nanmean(v))) if np.isfinite(v).any() else None  # noqa: E731
    return Granularity(
        n_papers=int(mi.size), mean_shift=float(diff.mean()), mean_shift_ci_low=lo, mean_shift_ci_high=hi,
        within_sd_integer=sd(vi), within_sd_decimal=sd(vd),
        n_papers_human=int(hp.size), mae_integer=mae_i, mae_decimal=mae_d, mae_change=change,
        mae_change_ci_low=c_lo, mae_change_ci_high=c_hi)
