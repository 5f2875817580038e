"""Semantic consistency between two reviews' opinion lists (issue #12 section 3; seed-001 §3).

For two same-polarity lists A and B of item embeddings: the |A|×|B| cosine matrix, the maximum-weight
one-to-one matching (Hungarian: scipy.optimize.linear_sum_assignment(maximize=True)), and

    S(A, B) = Σ_{(a,b) matched} cos(e_a, e_b) / max(|A|, |B|)

— an item left unmatched (the longer list's surplus) counts 0; matched negative cosines stay in. Both
lists empty: no value (None), never 0.

The mart: per study and polarity, within-configuration pairs (every unordered pair of one configuration's
reviews of a paper) and cross-configuration pairs (every pair of reviews of a paper by two
configurations); per comparison, the pair values are averaged within each paper, then over papers, with
a paper-bootstrap percentile interval (metrics.stats.bootstrap). An overall row per (study, polarity,
kind) pools the configuration pairs: each paper's mean over all its pairs of that kind.
A review takes part in a polarity only if it has at least one item of it (int_review_items has no rows
for an empty or unparsed list; the seed's corpus has none).
"""

from itertools import combinations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from metrics.stats.bootstrap import bootstrap_mean_ci

ALL = "*"  # config_a = config_b = '*': the overall row of a (study, polarity, kind)
KINDS = ("within", "cross")

OUT_COLUMNS = {
    "review_consistency_id": "string", "study_id": "string", "polarity": "string", "kind": "string",
    "config_a": "string", "config_b": "string", "label_a": "string", "label_b": "string",
    "n_papers": "int64", "n_pairs": "int64", "n_reviews": "int64", "n_items": "int64",
    "s_mean": "float64", "s_ci_low": "float64", "s_ci_high": "float64",
    "n_resamples": "int64", "bootstrap_seed": "int64",
    "embedding_model": "string", "embedding_model_hash": "string",
    "n_embeddings_computed": "int64", "n_embeddings_cached": "int64",
}


def matched_similarity(cosines) -> float | None:
    """S from a |A|×|B| cosine matrix: the Hungarian matching's sum over max(|A|, |B|)."""
    c = np.asarray(cosines, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"matched_similarity: expected a matrix, got shape {c.shape}")
    longer = max(c.shape)
    if longer == 0:
        return None
    if min(c.shape) == 0:
        return 0.0  # every item of the non-empty list is unmatched
    rows, cols = linear_sum_assignment(c, maximize=True)
    return float(c[rows, cols].sum() / longer)


def list_similarity(a, b) -> float | None:
    """S(A, B) for two lists of item embeddings (one row each); the cosines are computed here, so the
    vectors need not be unit length. An empty list (no rows) leaves every item of the other unmatched."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return matched_similarity(np.zeros((len(a) if a.size else 0, len(b) if b.size else 0)))
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return matched_similarity(a @ b.T)


def pair_table(items: pd.DataFrame, vectors: np.ndarray) -> pd.DataFrame:
    """One row per review pair of a paper and polarity: study_id, polarity, kind, config_a, config_b
    (config_a ≤ config_b), paper_id, review_a, review_b, s. `items` has study_id, study_review_id,
    paper_id, reviewer_config, polarity, item_index; `vectors` one row per item, aligned."""
    cols = ["study_id", "polarity", "kind", "config_a", "config_b", "paper_id", "review_a", "review_b", "s"]
    if items.empty:
        return pd.DataFrame(columns=cols)
    vectors = np.asarray(vectors, dtype=float)
    frame = items.reset_index(drop=True).assign(_row=np.arange(len(items)))
    out = []
    for (study, pol, paper), group in frame.groupby(["study_id", "polarity", "paper_id"], sort=True):
        reviews = []  # (config, review id, its item vectors in item order)
        for (cfg, rid), rev in group.sort_values("item_index").groupby(["reviewer_config", "study_review_id"],
                                                                       sort=True):
            reviews.append((cfg, rid, vectors[rev["_row"].to_numpy()]))
        for (ca, ra, va), (cb, rb, vb) in combinations(reviews, 2):
            kind = "within" if ca == cb else "cross"
            out.append((study, pol, kind, ca, cb, paper, ra, rb, list_similarity(va, vb)))
    return pd.DataFrame(out, columns=cols)


def _summary(pairs: pd.DataFrame, n_resamples: int, seed: int) -> dict:
    per_paper = pairs.groupby("paper_id", sort=True)["s"].mean()
    lo, hi = bootstrap_mean_ci(per_paper.to_numpy(), n_resamples=n_resamples, seed=seed)
    return {"n_papers": len(per_paper), "n_pairs": len(pairs), "s_mean": float(per_paper.mean()),
            "s_ci_low": lo, "s_ci_high": hi}


def consistency_table(items: pd.DataFrame, vectors: np.ndarray, *, n_resamples: int, seed: int,
                      embedding_model: str, embedding_model_hash: str, n_computed: int, n_cached: int) -> pd.DataFrame:
    """The review_consistency mart (module docstring); `items` as pair_table's plus reviewer_label."""
    pairs = pair_table(items, vectors)
    labels = dict(zip(items["reviewer_config"], items["reviewer_label"], strict=True)) if len(items) else {}
    rows = []
    for (study, pol, kind), of_kind in pairs.groupby(["study_id", "polarity", "kind"], sort=True):
        scope = items[(items["study_id"] == study) & (items["polarity"] == pol)]
        groups = [((ca, cb), g) for (ca, cb), g in of_kind.groupby(["config_a", "config_b"], sort=True)]
        groups.append(((ALL, ALL), of_kind))
        for (ca, cb), g in groups:
            reviews = set(g["review_a"]) | set(g["review_b"])
            rows.append({
                "review_consistency_id": "|".join((study, pol, kind, ca, cb)), "study_id": study,
                "polarity": pol, "kind": kind, "config_a": ca, "config_b": cb,
                "label_a": labels.get(ca, ALL), "label_b": labels.get(cb, ALL),
                **_summary(g, n_resamples, seed), "n_reviews": len(reviews),
                "n_items": int(scope["study_review_id"].isin(reviews).sum()),
                "n_resamples": n_resamples, "bootstrap_seed": seed, "embedding_model": embedding_model,
                "embedding_model_hash": embedding_model_hash, "n_embeddings_computed": n_computed,
                "n_embeddings_cached": n_cached})
    out = pd.DataFrame(rows, columns=list(OUT_COLUMNS))
    return out.astype(OUT_COLUMNS)
