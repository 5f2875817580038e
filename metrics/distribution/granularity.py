"""Does a forced-decimal score differ from the integer one? Paired paper-level comparisons.

The integer side is the control: exactly the first INTEGER_ROUNDS integer rounds (sample_index
0..4), the number of decimal rounds the comparison was designed for; later integer rounds would
give the integer mean a smaller noise than the decimal one and bias the SD and MAE comparisons.
Within-paper SD and intervals come from metrics.stats (one implementation each).
"""

from dataclasses import dataclass

import numpy as np

from metrics.stats.bootstrap import bootstrap_mean_ci
from metrics.stats.repeatability import within_paper_sd

INTEGER_ROUNDS = 5


@dataclass(frozen=True)
class Granularity:
    n_papers: int  # papers with at least one valid score under both protocols
    mean_shift: float  # mean over papers of (decimal mean − integer mean)
    mean_shift_ci_low: float
    mean_shift_ci_high: float
    within_sd_integer: float  # sqrt(mean S_i²) over papers with ≥ 2 scores; nan without such papers
    within_sd_decimal: float
    n_papers_human: int
    mae_integer: float  # mean |paper mean − H_i|; nan without H_i
    mae_decimal: float
    mae_change: float  # decimal − integer
    mae_change_ci_low: float
    mae_change_ci_high: float


def compare(integer: dict[str, np.ndarray], decimal: dict[str, np.ndarray],
            human: dict[str, float] | None = None, n_boot: int = 10_000, seed: int = 0) -> Granularity:
    """Valid scores per paper under each protocol (the integer ones already cut to the control
    rounds) and H_i where known. Papers need at least one score under both."""
    papers = sorted(p for p in integer.keys() & decimal.keys() if len(integer[p]) and len(decimal[p]))
    if not papers:
        raise ValueError("no paper has valid scores under both the integer and the decimal protocol")
    human = human or {}
    mi = np.array([np.mean(integer[p]) for p in papers])
    md = np.array([np.mean(decimal[p]) for p in papers])
    diff = md - mi
    lo, hi = bootstrap_mean_ci(diff, n_resamples=n_boot, seed=seed)
    rated = [i for i, p in enumerate(papers) if np.isfinite(human.get(p, np.nan))]
    nan = float("nan")
    mae_i = mae_d = change = c_lo = c_hi = nan
    if rated:
        h = np.array([human[papers[i]] for i in rated])
        ei, ed = np.abs(mi[rated] - h), np.abs(md[rated] - h)
        mae_i, mae_d = float(ei.mean()), float(ed.mean())
        change = mae_d - mae_i
        # Paired: the per-paper change in absolute error, resampled by paper.
        c_lo, c_hi = bootstrap_mean_ci(ed - ei, n_resamples=n_boot, seed=seed + 1)
    return Granularity(
        n_papers=len(papers), mean_shift=float(diff.mean()), mean_shift_ci_low=lo, mean_shift_ci_high=hi,
        within_sd_integer=within_paper_sd([integer[p] for p in papers]),
        within_sd_decimal=within_paper_sd([decimal[p] for p in papers]),
        n_papers_human=len(rated), mae_integer=mae_i, mae_decimal=mae_d, mae_change=change,
        mae_change_ci_low=c_lo, mae_change_ci_high=c_hi)
