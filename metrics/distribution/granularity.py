"""Does a forced-decimal score differ from the integer one? Paired paper-level comparisons.

The integer side is the control: exactly the first INTEGER_ROUNDS integer rounds (sample_index
0..4), the number of decimal rounds the comparison was designed for; later integer rounds would
give the integer mean a smaller noise than the decimal one and bias the SD and MAE comparisons.
Within-paper SD and intervals come from metrics.stats (one implementation each).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.keys import STUDY, has_study, key_columns
from peerlake.metrics.stats.repeatability import within_paper_sd

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


GRAN_COLUMNS = {"granularity_pair_id": "object", "integer_config": "object", "decimal_config": "object",
                "provider": "object", "model": "object", "n_integer_rounds": "int64", "n_papers": "int64",
                "n_decimal_reviews": "int64", "n_decimal_invalid": "int64", "decimal_invalid_rate": "float64",
                "mean_shift": "float64", "mean_shift_ci_low": "float64", "mean_shift_ci_high": "float64",
                "within_paper_sd_integer": "float64", "within_paper_sd_decimal": "float64",
                "n_papers_human": "int64", "mae_integer": "float64", "mae_decimal": "float64",
                "mae_change": "float64", "mae_change_ci_low": "float64", "mae_change_ci_high": "float64"}


def _valid_scores(scores: pd.DataFrame, config: str, papers: set, first_rounds: int | None = None) -> dict:
    """paper -> parsed scores of one configuration, optionally only rounds 1..first_rounds."""
    s = scores[(scores["reviewer_config"] == config) & scores["paper_id"].isin(papers)]
    if "is_parsed" in s:
        s = s[s["is_parsed"].astype(bool)]
    s = s.dropna(subset=["overall_score"])
    if first_rounds is not None:
        s = s[s["sample_index"] < first_rounds]  # sample_index counts rounds from 0
    return {p: g.sort_values("sample_index")["overall_score"].to_numpy(dtype=float)
            for p, g in s.groupby("paper_id")}


def granularity_table(papers: pd.DataFrame, scores: pd.DataFrame, n_boot: int = 10_000,
                      seed: int = 0) -> pd.DataFrame:
    """Per (study?, integer, decimal) configuration pair: pairs, H_i and invalid-answer counts from
    int_granularity_papers rows; the scores themselves from fct_ai_review_scores, the integer
    control cut to exactly its first INTEGER_ROUNDS rounds."""
    keys, rows = key_columns(papers, "granularity_pair_id"), []
    for key, g in papers.groupby(keys, sort=True):
        key = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        pool = scores[scores[STUDY] == key[STUDY]] if has_study(papers) and has_study(scores) else scores
        ids = set(g["paper_id"])
        integer = _valid_scores(pool, g["integer_config"].iloc[0], ids, INTEGER_ROUNDS)
        decimal = _valid_scores(pool, g["decimal_config"].iloc[0], ids)
        comparable = {p for p in integer.keys() & decimal.keys() if len(integer[p]) and len(decimal[p])}
        n_dec = int(g["n_decimal_scores"].sum() + g["n_decimal_invalid"].sum())
        base = {**key, "integer_config": g["integer_config"].iloc[0],
                "decimal_config": g["decimal_config"].iloc[0], "provider": g["provider"].iloc[0],
                "model": g["model"].iloc[0], "n_integer_rounds": INTEGER_ROUNDS, "n_papers": len(comparable),
                "n_decimal_reviews": n_dec, "n_decimal_invalid": int(g["n_decimal_invalid"].sum()),
                "decimal_invalid_rate": g["n_decimal_invalid"].sum() / n_dec if n_dec else None,
                "n_papers_human": 0}
        if comparable:
            human = dict(zip(g["paper_id"], g["human_score_mean"].astype(float), strict=True))
            res = compare({p: integer[p] for p in comparable}, {p: decimal[p] for p in comparable},
                          human, n_boot=n_boot, seed=seed)
            base.update(mean_shift=res.mean_shift, mean_shift_ci_low=res.mean_shift_ci_low,
                        mean_shift_ci_high=res.mean_shift_ci_high, within_paper_sd_integer=res.within_sd_integer,
                        within_paper_sd_decimal=res.within_sd_decimal, n_papers_human=res.n_papers_human,
                        mae_integer=res.mae_integer, mae_decimal=res.mae_decimal, mae_change=res.mae_change,
                        mae_change_ci_low=res.mae_change_ci_low, mae_change_ci_high=res.mae_change_ci_high)
        rows.append(base)
    columns = {STUDY: "object", **GRAN_COLUMNS} if has_study(papers) else GRAN_COLUMNS
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)
