"""Validity against humans: each paper's mean AI score against its mean human score H_i."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from peerlake.metrics.stats.keys import join_id, key_columns, key_dict, keyed_columns, typed_frame


@dataclass(frozen=True)
class Agreement:
    n_papers: int
    pearson: float
    spearman: float
    mae: float
    rmse: float


def agreement_with_humans(ai: Sequence[float], human: Sequence[float]) -> Agreement:
    """Pearson, Spearman, MAE, RMSE over papers; correlations are nan when either side is constant
    or there are fewer than 2 papers (scipy would warn and return nan anyway)."""
    x, y = np.asarray(ai, dtype=float), np.asarray(human, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"ai and human scores differ in length: {x.size} vs {y.size}")
    nan = float("nan")
    if x.size == 0:
        return Agreement(0, nan, nan, nan, nan)
    err = x - y
    mae, rmse = float(np.abs(err).mean()), float(np.sqrt((err ** 2).mean()))
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Agreement(int(x.size), nan, nan, mae, rmse)
    return Agreement(int(x.size), float(stats.pearsonr(x, y).statistic),
                     float(stats.spearmanr(x, y).statistic), mae, rmse)


def acceptance_auc(scores: Sequence[float], accepted: Sequence[bool]) -> float:
    """P(score of an accepted paper > score of a rejected one), tied pairs counting ½.

    This is the Mann–Whitney U of the accepted group over n_pos·n_neg (scipy's U counts ties ½).
    The one AUC of the project (validity, distribution estimation). Without an accepted *and* a
    rejected paper there is no pair to compare, so the result is nan (a null in the marts) — never
    0.5, which would read as "measured, no better than chance"."""
    s = np.asarray(scores, dtype=float)
    a = np.asarray(accepted, dtype=bool)
    pos, neg = s[a], s[~a]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    u = stats.mannwhitneyu(pos, neg, alternative="two-sided", method="asymptotic").statistic
    return float(u / (pos.size * neg.size))


VALIDITY_COLUMNS = {"validity_id": "string", "reviewer_config": "string", "scope": "string", "venue": "string",
                    "year": "Int64", "n_papers": "int64", "pearson": "float64",
                    "spearman": "float64", "mae": "float64", "rmse": "float64",
                    "n_papers_labeled": "int64", "n_accepted": "int64", "acceptance_auc": "float64",
                    "n_papers_labeled_not_withdrawn": "int64",
                    "acceptance_auc_excluding_withdrawn": "float64",
                    # trivial baselines on the same papers (metrics.stats.baselines)
                    "baseline_constant_mae": "float64", "baseline_constant_rmse": "float64",
                    "baseline_constant_auc": "float64", "n_papers_with_length": "int64",
                    "baseline_length_pearson": "float64", "baseline_length_spearman": "float64",
                    "baseline_length_auc": "float64", "acceptance_threshold": "float64",
                    "acceptance_accuracy": "float64", "n_papers_labeled_with_human": "int64",
                    "baseline_human_mean_auc": "float64", "baseline_human_threshold": "float64",
                    "baseline_human_threshold_accuracy": "float64"}


def _validity_row(key: dict, scope: str, venue, year, part: pd.DataFrame) -> dict:
    rated = part.dropna(subset=["ai_score_mean", "human_score_mean"])
    a = agreement_with_humans(rated["ai_score_mean"], rated["human_score_mean"])
    labeled = part.dropna(subset=["ai_score_mean", "is_accepted"])
    kept = labeled[~labeled["is_withdrawn"].fillna(False).astype(bool)]
    return {"validity_id": join_id(*key.values(), scope), **key, "scope": scope,
            "venue": venue, "year": year,
            "n_papers": a.n_papers, "pearson": a.pearson, "spearman": a.spearman, "mae": a.mae,
            "rmse": a.rmse, "n_papers_labeled": len(labeled),
            "n_accepted": int(labeled["is_accepted"].astype(bool).sum()),
            "acceptance_auc": acceptance_auc(labeled["ai_score_mean"], labeled["is_accepted"].astype(bool)),
            "n_papers_labeled_not_withdrawn": len(kept),
            "acceptance_auc_excluding_withdrawn": acceptance_auc(
                kept["ai_score_mean"], kept["is_accepted"].astype(bool)),
            **_baselines(rated, labeled)}


def _baselines(rated: pd.DataFrame, labeled: pd.DataFrame) -> dict:
    """The trivial baselines beside the row's figures, on the same papers: constant (MAE, RMSE over the
    rated papers; AUC over the labeled ones), review length (correlation with the human mean over the
    rated papers with a length; AUC over the labeled ones with a length), and the human mean score's
    threshold rule and AUC over the labeled papers with a human score."""
    from peerlake.metrics.stats.baselines import best_threshold_accuracy, constant_errors

    length = "review_chars_mean"
    mae, rmse = constant_errors(rated["human_score_mean"])
    accepted = labeled["is_accepted"].astype(bool)
    with_len = rated.dropna(subset=[length]) if length in rated else rated.iloc[0:0]
    by_len = agreement_with_humans(with_len[length], with_len["human_score_mean"]) if length in rated else None
    labeled_len = labeled.dropna(subset=[length]) if length in labeled else labeled.iloc[0:0]
    t, acc = best_threshold_accuracy(labeled["ai_score_mean"], accepted)
    humans = labeled.dropna(subset=["human_score_mean"])
    ht, hacc = best_threshold_accuracy(humans["human_score_mean"], humans["is_accepted"].astype(bool))
    nan = float("nan")
    return {"baseline_constant_mae": mae, "baseline_constant_rmse": rmse,
            "baseline_constant_auc": acceptance_auc(np.zeros(len(labeled)), accepted),
            "n_papers_with_length": len(with_len),
            "baseline_length_pearson": by_len.pearson if by_len else nan,
            "baseline_length_spearman": by_len.spearman if by_len else nan,
            "baseline_length_auc": acceptance_auc(labeled_len[length] if length in labeled else [],
                                                  labeled_len["is_accepted"].astype(bool)),
            "acceptance_threshold": t, "acceptance_accuracy": acc, "n_papers_labeled_with_human": len(humans),
            "baseline_human_mean_auc": acceptance_auc(humans["human_score_mean"], humans["is_accepted"].astype(bool)),
            "baseline_human_threshold": ht, "baseline_human_threshold_accuracy": hacc}


def validity_table(papers: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, overall and per venue-year (scope = 'all' or the venue_year label).

    `papers`: one row per (study_id?, reviewer_config, paper_id) with ai_score_mean,
    human_score_mean, venue, year, venue_year, is_accepted, is_withdrawn (any may be null)."""
    keys, rows = key_columns(papers, "reviewer_config"), []
    # dbt hands the rows over in no fixed order, and a float sum depends on its order: sorted, the same
    # papers give the same last digit on every build.
    papers = papers.sort_values([*keys, "paper_id"], kind="stable") if "paper_id" in papers else papers
    for key, part in papers.groupby(keys, sort=True):
        k = key_dict(keys, key)
        rows.append(_validity_row(k, "all", None, None, part))
        for label, sub in part.dropna(subset=["venue_year"]).groupby("venue_year", sort=True):
            year = sub["year"].dropna()
            rows.append(_validity_row(k, f"venue_year:{label}", sub["venue"].iloc[0],
                                      int(year.iloc[0]) if len(year) else None, sub))
    return typed_frame(rows, keyed_columns(papers, VALIDITY_COLUMNS))
