"""Semantic consistency between two reviews' opinion lists ("Can We Believe AI Peer Review?").

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
for an empty or unparsed list; the source paper's corpus has none).
"""

from dataclasses import dataclass
from itertools import combinations, pairwise

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci, bootstrap_mean_cis
from peerlake.metrics.stats.matching import best_matching_sums

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


@dataclass(frozen=True)
class _Reviews:
    """One (study, polarity)'s reviews, sorted by (paper, configuration, review id) as pair_table
    meets them; each review's items are rows start[r] … start[r] + size[r] − 1 of the sorted items."""

    paper: np.ndarray  # paper code (codes follow paper_id order)
    config: np.ndarray  # configuration code (codes follow reviewer_config order)
    start: np.ndarray
    size: np.ndarray
    papers: list
    configs: list


def _reviews(part: pd.DataFrame) -> tuple[_Reviews, np.ndarray]:
    """The reviews of one (study, polarity) and the item row order (into `part`) they index."""
    order = part.sort_values(["paper_id", "reviewer_config", "study_review_id", "item_index"], kind="stable")
    paper_codes, papers = pd.factorize(order["paper_id"], sort=True)
    config_codes, configs = pd.factorize(order["reviewer_config"], sort=True)
    review_codes = pd.factorize(order["study_review_id"])[0]
    first = np.flatnonzero(np.r_[True, review_codes[1:] != review_codes[:-1]])
    size = np.diff(np.r_[first, len(order)])
    return (_Reviews(paper_codes[first], config_codes[first], first, size, list(papers), list(configs)),
            order["_row"].to_numpy())


# Review pairs per vectorized batch: bounds the (pairs × items × items) cosine stacks at ~100 MB.
_PAIRS_PER_BATCH = 400_000


def _pair_sums(rev: _Reviews, unit: np.ndarray, vector_id: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S for every pair of reviews of a paper, summed and counted per (configuration a,
    configuration b, paper): two arrays of shape (configs, configs, papers). Item r of the sorted
    items has the unit vector unit[vector_id[r]]; each paper's cosines come from one Gram matrix of
    its distinct vectors (an item repeated word for word is compared once), and the pairs of many
    papers are matched together, one stack per (|A|, |B|) shape."""
    n_cfg, n_pap = len(rev.configs), len(rev.papers)
    sums = np.zeros(n_cfg * n_cfg * n_pap)
    counts = np.zeros(n_cfg * n_cfg * n_pap, dtype=np.int64)
    bounds = np.flatnonzero(np.r_[True, rev.paper[1:] != rev.paper[:-1], True])
    batch: list[tuple[int, int]] = []
    n_batch = 0
    for lo, hi in pairwise(bounds):
        batch.append((lo, hi))
        n_batch += (hi - lo) * (hi - lo - 1) // 2
        if n_batch >= _PAIRS_PER_BATCH or hi == bounds[-1]:
            cell, s = _batch_pairs(rev, unit, vector_id, batch)
            sums += np.bincount(cell, weights=s, minlength=sums.size)
            counts += np.bincount(cell, minlength=counts.size)
            batch, n_batch = [], 0
    return sums.reshape(n_cfg, n_cfg, n_pap), counts.reshape(n_cfg, n_cfg, n_pap)


def _batch_pairs(rev: _Reviews, unit: np.ndarray, vector_id: np.ndarray,
                 papers: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(cell, S) for every review pair of the papers given as review ranges [lo, hi)."""
    n_cfg, n_pap = len(rev.configs), len(rev.papers)
    local = np.empty(vector_id.size, dtype=np.intp)  # an item's row in its paper's Gram matrix
    grams, gram_at, width, first, second = [], [], [], [], []
    offset = 0
    for lo, hi in papers:
        items = slice(rev.start[lo], rev.start[hi - 1] + rev.size[hi - 1])
        distinct, local[items] = np.unique(vector_id[items], return_inverse=True)
        grams.append((unit[distinct] @ unit[distinct].T).ravel())
        ri, rj = np.triu_indices(hi - lo, k=1)
        first.append(lo + ri)
        second.append(lo + rj)
        gram_at.append(np.full(ri.size, offset))
        width.append(np.full(ri.size, distinct.size))
        offset += distinct.size * distinct.size
    if not any(f.size for f in first):
        return np.empty(0, dtype=np.intp), np.empty(0)
    flat = np.concatenate(grams)
    ri, rj = np.concatenate(first), np.concatenate(second)
    base, w = np.concatenate(gram_at), np.concatenate(width)
    a_all, b_all = rev.size[ri], rev.size[rj]
    s = np.empty(ri.size)
    shape = a_all * (rev.size.max() + 1) + b_all
    order = np.argsort(shape, kind="stable")
    cuts = np.flatnonzero(np.r_[True, np.diff(shape[order]) != 0, True])
    for lo, hi in pairwise(cuts):
        pick = order[lo:hi]
        a, b = int(a_all[pick[0]]), int(b_all[pick[0]])
        rows = local[rev.start[ri[pick]][:, None] + np.arange(a)]
        cols = local[rev.start[rj[pick]][:, None] + np.arange(b)]
        at = (base[pick] + 0)[:, None, None] + rows[:, :, None] * w[pick][:, None, None] + cols[:, None, :]
        s[pick] = best_matching_sums(flat[at]) / max(a, b)
    return (rev.config[ri] * n_cfg + rev.config[rj]) * n_pap + rev.paper[ri], s


# paper_sums' columns: one row per (study, polarity, paper, configuration pair) with a review pair.
PAPER_SUM_COLUMNS = {
    "study_id": "string", "polarity": "string", "paper_id": "string", "config_a": "string", "config_b": "string",
    "s_sum": "float64", "n_pairs": "int64",
    "n_reviews_a": "int64", "n_items_a": "int64", "n_reviews_b": "int64", "n_items_b": "int64",
}


def consistency_table(items: pd.DataFrame, vectors: np.ndarray, *, n_resamples: int, seed: int,
                      embedding_model: str, embedding_model_hash: str, n_computed: int, n_cached: int,
                      vector_of_item: np.ndarray | None = None) -> pd.DataFrame:
    """The review_consistency mart (module docstring); `items` as pair_table's plus reviewer_label.
    Item i's embedding is vectors[vector_of_item[i]] (default: vectors[i]), so a text shared by many
    items can be passed once.

    The same table as summarising pair_table, without a row per pair (a 10-configuration × 10-sample
    study has 4,950 pairs per paper): per-paper sums and counts per configuration pair (paper_sums),
    from which the rows' paper means, pairs, reviews and items follow (table_from_paper_sums)."""
    named = items[["reviewer_config", "reviewer_label"]].drop_duplicates()
    labels = dict(zip(named["reviewer_config"], named["reviewer_label"], strict=True))
    return table_from_paper_sums(paper_sums(items, vectors, vector_of_item), labels, n_resamples=n_resamples,
                                 seed=seed, embedding_model=embedding_model,
                                 embedding_model_hash=embedding_model_hash, n_computed=n_computed, n_cached=n_cached)


def paper_sums(items: pd.DataFrame, vectors: np.ndarray, vector_of_item: np.ndarray | None = None) -> pd.DataFrame:
    """Per (study, polarity, paper, config_a ≤ config_b) with at least one review pair: S summed over
    the pairs (s_sum), their number, and each configuration's reviews and items at the paper — all a
    paper contributes to the mart, so a paper's rows depend on its own items only. `items` as
    consistency_table's (reviewer_label not needed); study_review_id may be any codes sorting as the
    ids do, and the other key columns categoricals whose categories are sorted."""
    parts = []
    if len(items):
        vectors = np.asarray(vectors, dtype=float)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        vector_id = np.arange(len(items)) if vector_of_item is None else np.asarray(vector_of_item)
        frame = items.reset_index(drop=True).assign(_row=np.arange(len(items)))
        for (study, pol), part in frame.groupby(["study_id", "polarity"], sort=True, observed=True):
            rev, order = _reviews(part)
            sums, counts = _pair_sums(rev, unit, vector_id[order])
            n_rev, n_itm = _per_config(rev)
            # a pair's configurations are in code order (reviews sorted by configuration): a ≤ b
            ca, cb, p = np.nonzero(counts)
            configs, papers = np.asarray(rev.configs, dtype=object), np.asarray(rev.papers, dtype=object)
            parts.append(pd.DataFrame({
                "study_id": study, "polarity": pol, "paper_id": papers[p], "config_a": configs[ca],
                "config_b": configs[cb], "s_sum": sums[ca, cb, p], "n_pairs": counts[ca, cb, p],
                "n_reviews_a": n_rev[ca, p], "n_items_a": n_itm[ca, p],
                "n_reviews_b": n_rev[cb, p], "n_items_b": n_itm[cb, p]}))
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(PAPER_SUM_COLUMNS))
    return out.astype(PAPER_SUM_COLUMNS)


def table_from_paper_sums(sums: pd.DataFrame, labels: dict, *, n_resamples: int, seed: int, embedding_model: str,
                          embedding_model_hash: str, n_computed: int, n_cached: int) -> pd.DataFrame:
    """The review_consistency mart from paper_sums' rows (of whole studies); `labels` names each
    configuration. A paper without a review pair has no row and takes part in no mean, as in
    consistency_table, and the papers keep paper_id order, so the bootstrap draws the same papers.
    The intervals of the rows over the same papers share one bootstrap draw (bootstrap_mean_cis)."""
    rows = []
    for (study, pol), part in sums.groupby(["study_id", "polarity"], sort=True, observed=True):
        paper, papers = pd.factorize(part["paper_id"], sort=True)
        config_a, config_b = part["config_a"].to_numpy(dtype=object), part["config_b"].to_numpy(dtype=object)
        configs = sorted(set(config_a) | set(config_b))
        code = {c: i for i, c in enumerate(configs)}
        ca = np.array([code[c] for c in config_a], dtype=np.intp)
        cb = np.array([code[c] for c in config_b], dtype=np.intp)
        shape = (len(configs), len(configs), len(papers))
        s, n = np.zeros(shape), np.zeros(shape, dtype=np.int64)
        s[ca, cb, paper] = part["s_sum"].to_numpy(dtype=float)
        n[ca, cb, paper] = part["n_pairs"].to_numpy(dtype=np.int64)
        n_rev, n_itm = np.zeros(shape[1:], dtype=np.int64), np.zeros(shape[1:], dtype=np.int64)
        for side, cfg in (("a", ca), ("b", cb)):
            n_rev[cfg, paper] = part[f"n_reviews_{side}"].to_numpy(dtype=np.int64)
            n_itm[cfg, paper] = part[f"n_items_{side}"].to_numpy(dtype=np.int64)
        found = [(kind, *g) for kind, groups in _groups(configs, n_rev, n_itm, s, n) for g in groups]
        for (kind, (ca_, cb_), _, pairs, n_reviews, n_items), (per_paper, lo, hi) in zip(
                found, _paper_means(found, n_resamples, seed), strict=True):
            rows.append({
                "review_consistency_id": "|".join((study, pol, kind, ca_, cb_)), "study_id": study,
                "polarity": pol, "kind": kind, "config_a": ca_, "config_b": cb_,
                "label_a": labels.get(ca_, ALL), "label_b": labels.get(cb_, ALL),
                "n_papers": len(per_paper), "n_pairs": int(pairs.sum()),
                "s_mean": float(per_paper.mean()), "s_ci_low": lo, "s_ci_high": hi,
                "n_reviews": n_reviews, "n_items": n_items,
                "n_resamples": n_resamples, "bootstrap_seed": seed, "embedding_model": embedding_model,
                "embedding_model_hash": embedding_model_hash, "n_embeddings_computed": n_computed,
                "n_embeddings_cached": n_cached})
    out = pd.DataFrame(rows, columns=list(OUT_COLUMNS))
    return out.astype(OUT_COLUMNS)


def _per_config(rev: _Reviews) -> tuple[np.ndarray, np.ndarray]:
    """Reviews and items per (configuration, paper): who takes part in a pair of a kind."""
    n_rev = np.zeros((len(rev.configs), len(rev.papers)), dtype=np.int64)
    n_itm = np.zeros((len(rev.configs), len(rev.papers)), dtype=np.int64)
    np.add.at(n_rev, (rev.config, rev.paper), 1)
    np.add.at(n_itm, (rev.config, rev.paper), rev.size)
    return n_rev, n_itm


def _paper_means(found: list, n_resamples: int, seed: int) -> list[tuple[pd.Series, float, float]]:
    """Per group (kind, configs, per-paper sums, per-paper counts, …): the paper means (papers with a
    pair, in paper order) and their interval; groups over the same papers share one draw."""
    out: list = [None] * len(found)
    by_papers: dict[bytes, list[int]] = {}
    for i, (_, _, _, n, _, _) in enumerate(found):
        by_papers.setdefault((n > 0).tobytes(), []).append(i)
    for members in by_papers.values():
        has = found[members[0]][3] > 0
        means = np.column_stack([found[i][2][has] / found[i][3][has] for i in members])
        for i, (lo, hi) in zip(members, bootstrap_mean_cis(means, n_resamples=n_resamples, seed=seed),
                               strict=True):
            out[i] = (pd.Series(means[:, members.index(i)]), lo, hi)
    return out


def _groups(configs: list, n_rev: np.ndarray, n_itm: np.ndarray, sums: np.ndarray, counts: np.ndarray):
    """Per kind ("cross" before "within", as sorted), its configuration pairs in order and then the
    overall (*, *) group: ((config_a, config_b), per-paper S sums, pair counts, reviews, items).
    n_rev and n_itm count reviews and items per (configuration, paper); sums and counts are per
    (configuration a, configuration b, paper)."""
    n_cfg = len(configs)
    present = n_rev > 0
    shared = present.sum(axis=0) >= 2  # papers reviewed by two configurations or more
    for kind in sorted(KINDS):
        groups = []
        for ca in range(n_cfg):
            for cb in range(ca, n_cfg):
                if (ca == cb) != (kind == "within"):
                    continue
                n = counts[ca, cb] + (counts[cb, ca] if ca != cb else 0)
                if not n.any():
                    continue
                total = sums[ca, cb] + (sums[cb, ca] if ca != cb else 0)
                if ca == cb:
                    takes_part = n_rev[ca] >= 2
                    reviews, n_items = n_rev[ca][takes_part].sum(), n_itm[ca][takes_part].sum()
                else:
                    takes_part = present[ca] & present[cb]
                    reviews = (n_rev[ca] + n_rev[cb])[takes_part].sum()
                    n_items = (n_itm[ca] + n_itm[cb])[takes_part].sum()
                groups.append(((configs[ca], configs[cb]), total, n, int(reviews), int(n_items)))
        if not groups:
            continue
        takes_part = n_rev >= 2 if kind == "within" else present & shared[None, :]
        groups.append(((ALL, ALL), sum(g[1] for g in groups), sum(g[2] for g in groups),
                       int(n_rev[takes_part].sum()), int(n_itm[takes_part].sum())))
        yield kind, groups
