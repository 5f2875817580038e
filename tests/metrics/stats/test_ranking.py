"""Rank reproducibility and close pairs against a brute-force loop written independently."""

from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest

from peerlake.metrics.stats.ranking import (
    CLOSE_PAIR_BINS,
    close_pairs,
    n_partitions,
    partitions,
    rank_reproducibility,
)


def brute_partitions(n: int, k: int) -> set[frozenset]:
    """Every unordered {A, B} from all ordered choices, deduplicated as sets of sets."""
    out = set()
    for a in combinations(range(n), k):
        for b in combinations([r for r in range(n) if r not in a], k):
            out.add(frozenset([frozenset(a), frozenset(b)]))
    return out


def brute_counts(scores, k, groups=None, rounds=None):
    """(same, tie, reverse) by looping over unordered partitions and paper pairs with exact means."""
    n_rounds = len(scores[0]) if rounds is None else len(rounds)
    rounds = list(range(n_rounds)) if rounds is None else rounds
    counts = [0, 0, 0]
    for part in brute_partitions(n_rounds, k):
        a, b = (sorted(rounds[r] for r in block) for block in part)
        for i, j in combinations(range(len(scores)), 2):
            if groups is not None and groups[i] != groups[j]:
                continue
            mean = lambda p, blk: sum(Fraction(str(scores[p][r])) for r in blk) / k  # noqa: E731
            da, db = mean(i, a) - mean(j, a), mean(i, b) - mean(j, b)
            if da == 0 or db == 0:
                counts[1] += 1
            elif (da > 0) == (db > 0):
                counts[0] += 1
            else:
                counts[2] += 1
    return tuple(counts)


@pytest.mark.parametrize("n", range(2, 11))
def test_partition_count_formula_and_enumeration(n):
    for k in range(1, n // 2 + 1):
        a, b = partitions(n, k)
        got = {frozenset([frozenset(x), frozenset(y)]) for x, y in zip(a.tolist(), b.tolist(), strict=False)}
        assert len(a) == len(got) == n_partitions(n, k) == comb(n, k) * comb(n - k, k) // 2
        assert got == brute_partitions(n, k)


def test_k_outside_one_to_half_n_is_rejected():
    with pytest.raises(ValueError, match="k=3"):
        partitions(5, 3)


def test_hand_example():
    # n = 2, k = 1: the only partition is {round 1}, {round 2}. p1 [5, 6], p2 [6, 5]: round 1 puts
    # p2 ahead, round 2 p1 -> reverse. p1 vs p3 [5, 5]: tie in round 1. p2 vs p3: same (6>5, 5=5 -> tie).
    c = rank_reproducibility(np.array([[5, 6], [6, 5], [5, 5]]), 1)
    assert (c.n_same, c.n_tie, c.n_reverse, c.n_pairs, c.n_partitions) == (0, 2, 1, 3, 1)


@pytest.mark.parametrize("seed,decimal", [(1, False), (2, True)])
def test_matches_brute_force_with_venue_year_groups(seed, decimal):
    rng = np.random.default_rng(seed)
    scores = rng.integers(3, 9, size=(9, 6)).astype(float)
    if decimal:  # forced-decimal scores: sums like 5.1 + 6.2 must still tie exactly
        scores = scores + rng.choice([0.1, 0.2, 0.3], size=scores.shape)
    groups = ["ICLR 2017"] * 5 + ["ICLR 2018"] * 3 + [None]
    for k in (1, 2, 3):
        c = rank_reproducibility(scores, k, groups)
        assert (c.n_same, c.n_tie, c.n_reverse) == brute_counts(scores.tolist(), k, groups)
        assert c.n_pairs == comb(5, 2) + comb(3, 2)
        assert c.pct_same + c.pct_tie + c.pct_reverse == pytest.approx(100)


def test_identical_rounds_never_reverse():
    scores = np.repeat(np.arange(1, 8, dtype=float)[:, None], 4, axis=1)
    c = rank_reproducibility(scores, 2)
    assert c.n_reverse == 0 and c.n_tie == 0 and c.pct_same == 100


def test_close_pairs_match_brute_force_on_second_half_blocks():
    rng = np.random.default_rng(3)
    scores = rng.integers(4, 9, size=(10, 8)).astype(float)
    groups = ["A"] * 6 + ["B"] * 4
    rows = close_pairs(scores, groups)
    assert [(k, label) for k, label, _ in rows] == [(k, b[0]) for k in (1, 2) for b in CLOSE_PAIR_BINS]
    for k in (1, 2):
        total_pairs = 0
        for label, lower, upper in CLOSE_PAIR_BINS:
            members = []
            for i, j in combinations(range(10), 2):
                gap = abs(Fraction(int(scores[i, :4].sum()), 4) - Fraction(int(scores[j, :4].sum()), 4))
                if groups[i] == groups[j] and (gap == 0 if upper == 0 else lower < gap <= upper):
                    members.append((i, j))
            [c] = [c for kk, lab, c in rows if kk == k and lab == label]
            assert c.n_pairs == len(members)
            expected = [0, 0, 0]
            for i, j in members:
                got = brute_counts([scores[i].tolist(), scores[j].tolist()], k, rounds=[4, 5, 6, 7])
                expected = [e + g for e, g in zip(expected, got, strict=False)]
            assert (c.n_same, c.n_tie, c.n_reverse) == tuple(expected), (k, label)
            total_pairs += c.n_pairs
        assert total_pairs == comb(6, 2) + comb(4, 2)


def test_permuting_papers_changes_nothing():
    rng = np.random.default_rng(4)
    scores = rng.integers(1, 11, size=(12, 6))
    order = rng.permutation(12)
    for k in (1, 2, 3):
        assert rank_reproducibility(scores, k) == rank_reproducibility(scores[order], k)
