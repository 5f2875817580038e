"""Score prediction's correlations (the Multi-Layered Review paper): per (study, judge configuration, reviewer,
venue, year), a paper's mean predicted score against its human mean rating, over the papers that have
both. Pearson r, Spearman ρ (Pearson on average ranks) and Kendall τ-b (ties in either variable
corrected; scipy's default, the source paper does not say which variant) from scipy.stats.

Null with a reason, never 0: fewer than MIN_PAPERS papers (`fewer_than_3_papers`), or one side
constant (`constant_predictions` / `constant_human_scores`: no correlation is defined)."""

import numpy as np
import pandas as pd
from scipy import stats

MIN_PAPERS = 3
KEYS = ["study_id", "judge_config", "source", "reviewer", "venue", "venue_year"]
COLUMNS = {"score_prediction_correlation_id": "string", "study_id": "string", "judge_config": "string",
           "source": "string", "reviewer": "string", "venue": "string", "venue_year": "Int64",
           "is_reference": "bool", "n_papers_in_scope": "int64", "n_papers_predicted": "int64",
           "n_papers_with_human_score": "int64", "n_papers": "int64", "pearson": "float64", "spearman": "float64",
           "kendall_tau_b": "float64", "null_reason": "string",
           # trivial baselines on the same papers (metrics.stats.baselines): the predictor's MAE against the
           # constant that predicts the papers' mean human rating, and review length alone as the predictor
           "mae": "float64", "baseline_constant_mae": "float64", "n_papers_with_length": "int64",
           "baseline_length_pearson": "float64", "baseline_length_spearman": "float64",
           "baseline_length_kendall_tau_b": "float64", "baseline_length_null_reason": "string"}


def correlate(predicted, human) -> tuple[float | None, float | None, float | None, str | None]:
    """(pearson, spearman, kendall τ-b, null_reason) over paired values."""
    x, y = np.asarray(predicted, dtype=float), np.asarray(human, dtype=float)
    if x.size < MIN_PAPERS:
        return None, None, None, f"fewer_than_{MIN_PAPERS}_papers"
    if np.ptp(x) == 0:
        return None, None, None, "constant_predictions"
    if np.ptp(y) == 0:
        return None, None, None, "constant_human_scores"
    return (float(stats.pearsonr(x, y).statistic), float(stats.spearmanr(x, y).statistic),
            kendall_tau_b(x, y), None)


def kendall_tau_b(x, y) -> float:
    """Kendall's τ-b of paired values, scipy.stats.kendalltau(variant='b'): over the n₀ = n(n−1)/2 pairs
    of items, τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂)), C and D the concordant and discordant pairs, n₁ and
    n₂ the pairs tied in x and in y. nan when undefined (a side constant, or fewer than 2 items). The
    one τ of the marts: correlate's and the judge panel's ranking agreement (metrics.quality.panel)."""
    return float(stats.kendalltau(x, y, variant="b").statistic)


def _baselines(both: pd.DataFrame) -> dict:
    """The row's baselines over its papers with a prediction and a human rating (`both`)."""
    from peerlake.metrics.stats.baselines import constant_errors

    err = (both["predicted_score"].astype(float) - both["human_score_mean"].astype(float)).abs()
    with_len = both.dropna(subset=["review_chars_mean"]) if "review_chars_mean" in both else both.iloc[0:0]
    pearson, spearman, kendall, reason = correlate(with_len.get("review_chars_mean", []),
                                                   with_len["human_score_mean"])
    return {"mae": float(err.mean()) if len(both) else None,
            "baseline_constant_mae": constant_errors(both["human_score_mean"])[0] if len(both) else None,
            "n_papers_with_length": len(with_len), "baseline_length_pearson": pearson,
            "baseline_length_spearman": spearman, "baseline_length_kendall_tau_b": kendall,
            "baseline_length_null_reason": reason}


def correlation_table(papers: pd.DataFrame) -> pd.DataFrame:
    """papers: score_prediction_papers (one row per study × judge config × reviewer × paper, with
    predicted_score, human_score_mean, venue, venue_year, is_variant). Variants are left out: they
    have no human rating of their own."""
    rows = []
    papers = papers[~papers["is_variant"].astype(bool)] if len(papers) else papers
    if len(papers):
        papers = papers.assign(venue=papers["venue"].fillna("unknown"), venue_year=papers["venue_year"].astype("Int64"))
        for key, g in papers.groupby(KEYS, dropna=False, sort=True):
            both = g[g["predicted_score"].notna() & g["human_score_mean"].notna()]
            pearson, spearman, kendall, reason = correlate(both["predicted_score"], both["human_score_mean"])
            values = dict(zip(KEYS, key, strict=True))
            year = values["venue_year"]
            rows.append({"score_prediction_correlation_id": "|".join(
                             str(v) for v in (*key[:5], "" if pd.isna(year) else int(year))),
                         **values, "venue_year": None if pd.isna(year) else int(year),
                         "is_reference": values["source"] == "human",
                         "n_papers_in_scope": len(g), "n_papers_predicted": int(g["predicted_score"].notna().sum()),
                         "n_papers_with_human_score": int(g["human_score_mean"].notna().sum()),
                         "n_papers": len(both), "pearson": pearson, "spearman": spearman, "kendall_tau_b": kendall,
                         "null_reason": reason, **_baselines(both)})
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
