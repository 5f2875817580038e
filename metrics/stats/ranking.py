"""Do independent reviews reproduce the same ranking? Exact enumeration of block partitions.

A partition is an unordered pair {A, B} of disjoint k-sets of review rounds, applied to every paper
alike; there are ½·C(n,k)·C(n−k,k). For a pair of papers, the block-A means order them one way or
the other (or tie), and so do the block-B means: same, tie (in at least one block) or reverse.
Comparing block sums instead of means gives the same order (both blocks have k rounds) and stays
exact for integer scores.

rank_reproducibility counts all pairs within a group by Kendall-style sorting (metrics.stats.kendall,
O(P log P) per partition and group); compare_blocks counts a given list of pairs one by one (close
pairs, whose bins select pairs by a gap) and is the O(P²) reference the property test checks against.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd

from peerlake.metrics.stats.kendall import CHUNK_ELEMENTS, dense_ranks, pair_counts
from peerlake.metrics.stats.keys import key_columns, key_dict, keyed_columns, score_rounds, typed_frame

# (label, lower, upper): |difference of first-half means| in (lower, upper]; the first bin is exactly 0.
CLOSE_PAIR_BINS: tuple[tuple[str, float, float], ...] = (
    ("0", 0.0, 0.0), ("(0, 0.4]", 0.0, 0.4), ("(0.4, 1]", 0.4, 1.0), ("(1, 2]", 1.0, 2.0),
    ("> 2", 2.0, float("inf")),
)
# Block sums of decimal scores (e.g. 5.1 + 6.2) carry float noise; compare them at this precision.
_DECIMALS = 9
# Elements per chunk of the (pairs × partitions) sign arrays: bounds memory at a few tens of MB.
_CHUNK_ELEMENTS = 2_000_000


def n_partitions(n: int, k: int) -> int:
    """½·C(n,k)·C(n−k,k): unordered pairs of disjoint k-sets of n rounds."""
    if k < 1 or 2 * k > n:
        raise ValueError(f"block size k={k} needs 1 <= k <= n/2 for n={n} rounds")
    return comb(n, k) * comb(n - k, k) // 2


def partitions(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered partition {A, B} once, as two (P, k) index arrays.

    Each unordered pair shows up twice among ordered pairs (A, B); keeping the one whose A holds
    the smaller lowest round picks exactly one of the two."""
    n_partitions(n, k)  # validates k
    a_sets, b_sets = [], []
    for a in combinations(range(n), k):
        rest = [r for r in range(n) if r not in a]
        for b in combinations(rest, k):
            if a[0] < b[0]:
                a_sets.append(a)
                b_sets.append(b)
    return np.array(a_sets, dtype=np.intp), np.array(b_sets, dtype=np.intp)


@dataclass(frozen=True)
class Comparison:
    """Counts over (paper pair × partition) comparisons; percentages are their shares."""

    n_same: int
    n_tie: int
    n_reverse: int
    n_pairs: int
    n_partitions: int

    @property
    def n_comparisons(self) -> int:
        return self.n_same + self.n_tie + self.n_reverse

    def pct(self, count: int) -> float:
        return 100.0 * count / self.n_comparisons if self.n_comparisons else float("nan")

    @property
    def pct_same(self) -> float:
        return self.pct(self.n_same)

    @property
    def pct_tie(self) -> float:
        return self.pct(self.n_tie)

    @property
    def pct_reverse(self) -> float:
        return self.pct(self.n_reverse)


def _pairs_within(groups: Sequence | None, n_papers: int) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (i, j), i < j, of papers in the same group (all papers when groups is None)."""
    if groups is None:
        return np.triu_indices(n_papers, k=1)
    labels = np.asarray(["" if g is None else str(g) for g in groups])
    if labels.size != n_papers:
        raise ValueError(f"{labels.size} group labels for {n_papers} papers")
    firsts, seconds = [], []
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        i, j = np.triu_indices(members.size, k=1)
        firsts.append(members[i])
        seconds.append(members[j])
    if not firsts:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    return np.concatenate(firsts), np.concatenate(seconds)


def compare_blocks(scores: np.ndarray, a_sets: np.ndarray, b_sets: np.ndarray,
                   first: np.ndarray, second: np.ndarray) -> Comparison:
    """Same / tie / reverse counts for the paper pairs (first[p], second[p]) under every partition."""
    scores = np.asarray(scores, dtype=float)
    sums_a = np.round(scores[:, a_sets].sum(axis=2), _DECIMALS)  # (papers, partitions)
    sums_b = np.round(scores[:, b_sets].sum(axis=2), _DECIMALS)
    n_pairs, n_parts = first.size, a_sets.shape[0]
    same = reverse = 0
    step = max(1, _CHUNK_ELEMENTS // max(n_parts, 1))
    for start in range(0, n_pairs, step):
        i, j = first[start:start + step], second[start:start + step]
        order = np.sign(sums_a[i] - sums_a[j]) * np.sign(sums_b[i] - sums_b[j])
        same += int(np.count_nonzero(order > 0))
        reverse += int(np.count_nonzero(order < 0))
    total = n_pairs * n_parts
    return Comparison(same, total - same - reverse, reverse, int(n_pairs), int(n_parts))


def _group_members(groups: Sequence | None, n_papers: int) -> list[np.ndarray]:
    """Paper indices per group (labels as _pairs_within reads them), groups of ≥ 2 papers only."""
    if groups is None:
        return [np.arange(n_papers)] if n_papers >= 2 else []
    labels = np.asarray(["" if g is None else str(g) for g in groups])
    if labels.size != n_papers:
        raise ValueError(f"{labels.size} group labels for {n_papers} papers")
    members = (np.flatnonzero(labels == label) for label in np.unique(labels))
    return [m for m in members if m.size >= 2]


def _subset_index(n: int, k: int, a_sets: np.ndarray, b_sets: np.ndarray):
    """Every k-subset of the n rounds once, and each partition's A and B as indices into them:
    a block's sums and ranks depend on its k-set alone, so they are computed per k-set, not per
    partition (C(10,3) = 120 k-sets against 2,100 partitions)."""
    subsets = list(combinations(range(n), k))
    index = {s: i for i, s in enumerate(subsets)}
    a_idx = np.array([index[tuple(a)] for a in a_sets.tolist()], dtype=np.intp)
    b_idx = np.array([index[tuple(b)] for b in b_sets.tolist()], dtype=np.intp)
    return np.array(subsets, dtype=np.intp), a_idx, b_idx


def rank_reproducibility(scores: np.ndarray, k: int, groups: Sequence | None = None) -> Comparison:
    """Same / tie / reverse over every partition of the n rounds into two k-blocks and every pair
    of papers within the same group (venue-year). `scores` is (papers, rounds), rounds in order.

    Per group and partition, the pairs are counted by sorting (metrics.stats.kendall), exactly the
    counts compare_blocks gets by comparing every pair."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a (papers, rounds) matrix, got shape {scores.shape}")
    a_sets, b_sets = partitions(scores.shape[1], k)
    subsets, a_idx, b_idx = _subset_index(scores.shape[1], k, a_sets, b_sets)
    same = tie = reverse = n_pairs = 0
    for members in _group_members(groups, scores.shape[0]):
        n_pairs += comb(members.size, 2)
        sums = np.round(scores[members][:, subsets].sum(axis=2), _DECIMALS)  # (papers, k-sets)
        ranks, ties = dense_ranks(sums.T)  # (k-sets, papers): one ordering of the group per k-set
        step = max(1, CHUNK_ELEMENTS // members.size)
        for start in range(0, a_idx.size, step):
            a, b = a_idx[start:start + step], b_idx[start:start + step]
            s, t, r = pair_counts(ranks[a], ranks[b], int(ties[a].sum()), int(ties[b].sum()))
            same, tie, reverse = same + s, tie + t, reverse + r
    return Comparison(same, tie, reverse, n_pairs, int(a_sets.shape[0]))


def close_pairs(scores: np.ndarray, groups: Sequence | None = None,
                ks: Sequence[int] = (1, 2)) -> list[tuple[int, str, Comparison]]:
    """Pairs binned by |difference of their means over rounds 1..⌊n/2⌋|, compared with blocks
    drawn only from rounds ⌊n/2⌋+1..n, so grouping and comparison use different scores.

    Returns (k, bin label, Comparison) for each k that fits in the second half and each bin."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a (papers, rounds) matrix, got shape {scores.shape}")
    n = scores.shape[1]
    half = n // 2
    if half < 1:
        return []
    first, second = _pairs_within(groups, scores.shape[0])
    early_sum = np.round(scores[:, :half].sum(axis=1), _DECIMALS)
    gap = np.round(np.abs(early_sum[first] - early_sum[second]) / half, _DECIMALS)
    late = scores[:, half:]
    bins = np.full(gap.size, -1)
    for i, (_, lower, upper) in enumerate(CLOSE_PAIR_BINS):
        bins[gap == 0 if upper == 0 else (gap > lower) & (gap <= upper)] = i
    out = []
    for k in ks:
        if 2 * k > late.shape[1]:
            continue
        a_sets, b_sets = partitions(late.shape[1], k)
        counts = _binned_counts(late, a_sets, b_sets, first, second, bins, len(CLOSE_PAIR_BINS))
        for i, (label, _, _) in enumerate(CLOSE_PAIR_BINS):
            same, reverse, n_pairs = (int(c[i]) for c in counts)
            total = n_pairs * a_sets.shape[0]
            out.append((k, label, Comparison(same, total - same - reverse, reverse, n_pairs, int(a_sets.shape[0]))))
    return out


def _binned_counts(scores: np.ndarray, a_sets: np.ndarray, b_sets: np.ndarray, first: np.ndarray,
                   second: np.ndarray, bins: np.ndarray, n_bins: int) -> tuple[np.ndarray, ...]:
    """compare_blocks for the pairs of every bin in one pass: (same, reverse, pairs) per bin."""
    sums_a = np.round(scores[:, a_sets].sum(axis=2), _DECIMALS)
    sums_b = np.round(scores[:, b_sets].sum(axis=2), _DECIMALS)
    same, reverse = np.zeros(n_bins, dtype=np.int64), np.zeros(n_bins, dtype=np.int64)
    keep = bins >= 0
    first, second, bins = first[keep], second[keep], bins[keep]
    step = max(1, _CHUNK_ELEMENTS // max(a_sets.shape[0], 1))
    for start in range(0, first.size, step):
        i, j, b = first[start:start + step], second[start:start + step], bins[start:start + step]
        order = np.sign(sums_a[i] - sums_a[j]) * np.sign(sums_b[i] - sums_b[j])
        same += np.bincount(b, weights=np.count_nonzero(order > 0, axis=1), minlength=n_bins).astype(np.int64)
        reverse += np.bincount(b, weights=np.count_nonzero(order < 0, axis=1), minlength=n_bins).astype(np.int64)
    return same, reverse, np.bincount(bins, minlength=n_bins)


BIN_ORDER = {label: i for i, (label, _, _) in enumerate(CLOSE_PAIR_BINS)}
COMPARISON_COLUMNS = {"n_rounds": "int64", "n_papers": "int64", "n_papers_excluded": "int64",
                      "n_pairs": "int64", "n_partitions": "int64", "n_same": "int64",
                      "n_tie": "int64", "n_reverse": "int64"}
RANK_COLUMNS = {"reviewer_config": "string", "k": "int64", **COMPARISON_COLUMNS}
CLOSE_COLUMNS = {"reviewer_config": "string", "k": "int64", "gap_bin": "string",
                 "gap_bin_order": "int64", **COMPARISON_COLUMNS}


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
    for key, papers in score_rounds(scores).items():
        ids, matrix, excluded = score_matrix(papers)
        if not ids:
            continue
        groups = _groups(ids, context)
        for k in range(1, matrix.shape[1] // 2 + 1):
            c = rank_reproducibility(matrix, k, groups)
            rows.append({**key_dict(keys, key), "k": k, **_comparison_row(matrix, excluded, c)})
    return typed_frame(rows, keyed_columns(scores, RANK_COLUMNS))


def close_pair_table(scores: pd.DataFrame, context: pd.DataFrame | None = None) -> pd.DataFrame:
    """Counts per (configuration, k ∈ {1, 2}, first-half gap bin)."""
    keys, rows = key_columns(scores, "reviewer_config"), []
    for key, papers in score_rounds(scores).items():
        ids, matrix, excluded = score_matrix(papers)
        if not ids:
            continue
        for k, label, c in close_pairs(matrix, _groups(ids, context)):
            rows.append({**key_dict(keys, key), "k": k, "gap_bin": label,
                         "gap_bin_order": BIN_ORDER[label], **_comparison_row(matrix, excluded, c)})
    return typed_frame(rows, keyed_columns(scores, CLOSE_COLUMNS))
