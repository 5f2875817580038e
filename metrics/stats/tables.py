"""The dbt Python models' bodies: long pandas frames in, mart rows out (pytest covers them here,
since dbt unit tests cannot run Python models).

Score frames have columns reviewer_config, paper_id, sample_index, overall_score (parsed only), and
study_id once studies exist: every table is then keyed by (study_id, reviewer_config), study_id
first; without a study_id column it is keyed by reviewer_config alone.
"""

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics.stats.budgets import CERTIFIED_PAIRS_RULE, certified_pairs, compute_budgets
from metrics.stats.keys import join_id, key_columns, keyed_columns
from metrics.stats.ranking import CLOSE_PAIR_BINS, close_pairs, rank_reproducibility
from metrics.stats.repeatability import drift_bootstrap, pooled_variance, within_paper_sd
from metrics.stats.validity import acceptance_auc, agreement_with_humans

BIN_ORDER = {label: i for i, (label, _, _) in enumerate(CLOSE_PAIR_BINS)}
DRIFT_COLUMNS = {"reviewer_config": "string", "n_papers_drift": "int64", "drift_mean_early": "float64",
                 "drift_mean_late": "float64", "drift_shift": "float64", "drift_ci_low": "float64",
                 "drift_ci_high": "float64"}
VARIANCE_COLUMNS = {"reviewer_config": "string", "n_papers": "int64", "n_papers_repeated": "int64",
                    "reviews_per_repeated_paper_min": "Int64", "variance_hat": "float64",
                    "within_paper_sd": "float64", "n_certified_pairs": "int64",
                    "certified_pairs_rule": "string"}
COMPARISON_COLUMNS = {"n_rounds": "int64", "n_papers": "int64", "n_papers_excluded": "int64",
                      "n_pairs": "int64", "n_partitions": "int64", "n_same": "int64",
                      "n_tie": "int64", "n_reverse": "int64"}
RANK_COLUMNS = {"reviewer_config": "string", "k": "int64", **COMPARISON_COLUMNS}
CLOSE_COLUMNS = {"reviewer_config": "string", "k": "int64", "gap_bin": "string",
                 "gap_bin_order": "int64", **COMPARISON_COLUMNS}
VALIDITY_COLUMNS = {"validity_id": "string", "reviewer_config": "string", "scope": "string", "venue": "string",
                    "year": "Int64", "n_papers": "int64", "pearson": "float64",
                    "spearman": "float64", "mae": "float64", "rmse": "float64",
                    "n_papers_labeled": "int64", "n_accepted": "int64", "acceptance_auc": "float64",
                    "n_papers_labeled_not_withdrawn": "int64",
                    "acceptance_auc_excluding_withdrawn": "float64"}
BUDGET_COLUMNS = {"budget_id": "string", "reviewer_config": "string", "tolerance": "float64", "alpha": "float64",
                  "alpha_per_config": "float64", "beta": "float64", "n_configs": "int64",
                  "scale_min": "float64", "scale_max": "float64", "n_papers": "int64",
                  "reviews_per_paper_min": "int64", "n_pairs": "int64",
                  "certified_pairs_rule": "string", "variance_hat": "float64",
                  "variance_upper": "float64", "planning_budget": "int64",
                  "certified_budget": "int64", "range_only_budget": "int64"}


def _frame(rows: list[dict], columns: dict[str, str]) -> pd.DataFrame:
    """Rows in a frame with fixed column types, so an empty lake still gives typed, empty tables."""
    frame = pd.DataFrame(rows, columns=list(columns))
    return frame.astype(columns)


def _key(names: list[str], values) -> dict:
    return dict(zip(names, values if isinstance(values, tuple) else (values,), strict=True))


def _rounds(scores: pd.DataFrame) -> dict[tuple, dict[str, np.ndarray]]:
    """(study_id?, config) -> paper -> its parsed scores in round (sample_index) order."""
    keys = key_columns(scores, "reviewer_config")
    out: dict[tuple, dict[str, np.ndarray]] = {}
    ordered = scores.dropna(subset=["overall_score"]).sort_values([*keys, "paper_id", "sample_index"])
    ordered = ordered.dropna(subset=[*keys, "paper_id"])  # groupby leaves null keys out
    if ordered.empty:
        return out
    # Cut the sorted rows where (key, paper) changes instead of a pandas group per paper: the same
    # groups in the same order, ~100× faster at 100,000 (configuration, paper) groups.
    columns = [ordered[c].to_numpy(dtype=object) for c in [*keys, "paper_id"]]
    changed = np.zeros(len(ordered), dtype=bool)
    changed[0] = True
    for col in columns:
        changed[1:] |= col[1:] != col[:-1]
    starts = np.flatnonzero(changed)
    values = ordered["overall_score"].to_numpy(dtype=float)
    for start, part in zip(starts.tolist(), np.split(values, starts[1:]), strict=True):
        *key, paper = (col[start] for col in columns)
        out.setdefault(tuple(key), {})[paper] = part
    return out


def drift_table(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: late − early rounds with a paired paper-bootstrap interval."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in _rounds(scores).items():
        d = drift_bootstrap(list(papers.values()))
        rows.append({**_key(keys, key), "n_papers_drift": d.n_papers,
                     "drift_mean_early": d.mean_early, "drift_mean_late": d.mean_late,
                     "drift_shift": d.shift, "drift_ci_low": d.ci_low, "drift_ci_high": d.ci_high})
    return _frame(rows, keyed_columns(scores, DRIFT_COLUMNS))


def variance_table(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: V̂, sqrt(V̂) and the M the certified budget may use.

    V̂ pools the repeated papers (≥ 2 parsed scores); M = N·⌊n_min/2⌋ over those papers
    (metrics.stats.budgets.certified_pairs: Σ⌊n_i/2⌋ would be anti-conservative)."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in _rounds(scores).items():
        repeated = [s for s in papers.values() if len(s) >= 2]
        rows.append({**_key(keys, key), "n_papers": len(papers), "n_papers_repeated": len(repeated),
                     "reviews_per_repeated_paper_min": min((len(s) for s in repeated), default=None),
                     "variance_hat": pooled_variance(repeated), "within_paper_sd": within_paper_sd(repeated),
                     "n_certified_pairs": certified_pairs(len(s) for s in repeated),
                     "certified_pairs_rule": CERTIFIED_PAIRS_RULE})
    return _frame(rows, keyed_columns(scores, VARIANCE_COLUMNS))


def score_matrix(papers: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray, int]:
    """(paper ids, papers × n matrix, papers left out). Partitions need the same n rounds for every
    paper: n is the most common number of scores (the larger on a tie); papers with more keep
    their first n rounds, papers with fewer (failed or unparsed answers) are left out."""
    counts = pd.Series({p: len(s) for p, s in papers.items()}, dtype="int64")
    counts = counts[counts >= 2]
    if counts.empty:
        return [], np.empty((0, 0)), len(papers)
    freq = counts.value_counts()
    n = int(max(freq[freq == freq.max()].index))
    kept = sorted(p for p, c in counts.items() if c >= n)
    return kept, np.array([papers[p][:n] for p in kept]), len(papers) - len(kept)


def _groups(paper_ids: Sequence[str], context: pd.DataFrame | None) -> list[str | None] | None:
    if context is None or context.empty:
        return None
    venue_year = dict(zip(context["paper_id"], context["venue_year"], strict=True))
    return [venue_year.get(p) for p in paper_ids]


def _comparison_row(matrix: np.ndarray, excluded: int, comparison) -> dict:
    return {"n_rounds": matrix.shape[1], "n_papers": matrix.shape[0],
            "n_papers_excluded": excluded, "n_pairs": comparison.n_pairs,
            "n_partitions": comparison.n_partitions, "n_same": comparison.n_same,
            "n_tie": comparison.n_tie, "n_reverse": comparison.n_reverse}


def rank_table(scores: pd.DataFrame, context: pd.DataFrame | None = None) -> pd.DataFrame:
    """Counts per (configuration, k = 1..⌊n/2⌋); pairs within a venue-year (context.venue_year)."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in _rounds(scores).items():
        ids, matrix, excluded = score_matrix(papers)
        if not ids:
            continue
        groups = _groups(ids, context)
        for k in range(1, matrix.shape[1] // 2 + 1):
            c = rank_reproducibility(matrix, k, groups)
            rows.append({**_key(keys, key), "k": k, **_comparison_row(matrix, excluded, c)})
    return _frame(rows, keyed_columns(scores, RANK_COLUMNS))


def close_pair_table(scores: pd.DataFrame, context: pd.DataFrame | None = None) -> pd.DataFrame:
    """Counts per (configuration, k ∈ {1, 2}, first-half gap bin)."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in _rounds(scores).items():
        ids, matrix, excluded = score_matrix(papers)
        if not ids:
            continue
        for k, label, c in close_pairs(matrix, _groups(ids, context)):
            rows.append({**_key(keys, key), "k": k, "gap_bin": label,
                         "gap_bin_order": BIN_ORDER[label], **_comparison_row(matrix, excluded, c)})
    return _frame(rows, keyed_columns(scores, CLOSE_COLUMNS))


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
                kept["ai_score_mean"], kept["is_accepted"].astype(bool))}


def validity_table(papers: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, overall and per venue-year (scope = 'all' or the venue_year label).

    `papers`: one row per (study_id?, reviewer_config, paper_id) with ai_score_mean,
    human_score_mean, venue, year, venue_year, is_accepted, is_withdrawn (any may be null)."""
    keys, rows = key_columns(papers, "reviewer_config"), []
    for key, part in papers.groupby(keys, sort=True):
        k = _key(keys, key)
        rows.append(_validity_row(k, "all", None, None, part))
        for label, sub in part.dropna(subset=["venue_year"]).groupby("venue_year", sort=True):
            year = sub["year"].dropna()
            rows.append(_validity_row(k, f"venue_year:{label}", sub["venue"].iloc[0],
                                      int(year.iloc[0]) if len(year) else None, sub))
    return _frame(rows, keyed_columns(papers, VALIDITY_COLUMNS))


def budget_table(variance: pd.DataFrame, tolerances: Sequence[float], *, alpha: float,
                 beta: float, scale_min: float, scale_max: float,
                 n_configs: int = 1) -> pd.DataFrame:
    """One row per (configuration with a variance estimate, tolerance ε), from variance_table rows."""
    keys, rows = key_columns(variance, "reviewer_config"), []
    for r in variance.sort_values(keys).to_dict("records"):
        if pd.isna(r["variance_hat"]) or not r["n_certified_pairs"]:
            continue
        n_min = int(r["reviews_per_repeated_paper_min"])
        for eps in tolerances:
            # pilot_reviews = n_min makes compute_budgets count M = N·⌊n_min/2⌋ (certified_pairs).
            b = compute_budgets(float(r["variance_hat"]), int(r["n_papers_repeated"]), n_min, float(eps),
                                alpha=alpha, beta=beta, scale_min=scale_min, scale_max=scale_max,
                                n_configs=n_configs, n_pairs=int(r["n_certified_pairs"]))
            key = {k: r[k] for k in keys}
            rows.append({"budget_id": join_id(*key.values(), f"eps={eps:g}"), **key,
                         "reviews_per_paper_min": n_min, "certified_pairs_rule": r["certified_pairs_rule"],
                         **{k: v for k, v in b.as_dict().items() if k in BUDGET_COLUMNS}})
    return _frame(rows, keyed_columns(variance, BUDGET_COLUMNS))
