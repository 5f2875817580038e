"""The O(P log P) same / tie / reverse counts against counting every pair, on data full of ties."""

from itertools import combinations

import numpy as np
import pytest

from peerlake.metrics.stats.kendall import dense_ranks, inversions, pair_counts
from peerlake.metrics.stats.ranking import _pairs_within, compare_blocks, partitions, rank_reproducibility


def counts_by_pairs(x, y) -> tuple[int, int, int]:
    """(same, tie, reverse) over every pair of every row, one comparison at a time."""
    same = tie = reverse = 0
    for xs, ys in zip(x.tolist(), y.tolist(), strict=True):
        for i, j in combinations(range(len(xs)), 2):
            product = (xs[i] - xs[j]) * (ys[i] - ys[j])
            if product > 0:
                same += 1
            elif product < 0:
                reverse += 1
            else:
                tie += 1
    return same, tie, reverse


@pytest.mark.parametrize("seed", range(6))
def test_pair_counts_equal_the_pairwise_count(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        # sizes around the merge widths (2, 3, 64, 129 …) and alphabets from all-tied to all-distinct
        p = int(rng.choice([1, 2, 3, 5, 8, 17, 64, 65, 129]))
        rows = int(rng.integers(1, 6))
        x = rng.integers(0, int(rng.choice([1, 2, 3, 10, 1000])), size=(rows, p)).astype(float)
        y = rng.integers(0, int(rng.choice([1, 2, 3, 10, 1000])), size=(rows, p)).astype(float)
        (xr, x_ties), (yr, y_ties) = dense_ranks(x), dense_ranks(y)
        expected = counts_by_pairs(x, y)
        assert pair_counts(xr, yr) == expected
        assert pair_counts(xr, yr, int(x_ties.sum()), int(y_ties.sum())) == expected


def test_dense_ranks_keep_order_and_ties():
    ranks, ties = dense_ranks(np.array([[5.1, 2.0, 5.1, 7.0, 2.0, 2.0]]))
    assert ranks.tolist() == [[1, 0, 1, 2, 0, 0]] and ties.tolist() == [1 + 3]


def test_inversions_of_a_long_reversed_row_use_wide_keys():
    # 40,000 distinct ranks need 16 bits each: the packed merge keys go to int64
    n = 40_000
    assert inversions(np.arange(n)[::-1].reshape(1, n), 16) == n * (n - 1) // 2
    assert inversions(np.zeros((2, n), dtype=np.int64), 16) == 0


@pytest.mark.parametrize("seed,decimal", [(11, False), (12, True), (13, False)])
def test_rank_reproducibility_equals_comparing_every_pair(seed, decimal):
    """The sort-based counts against compare_blocks (every pair × every partition)."""
    rng = np.random.default_rng(seed)
    n_papers, n_rounds = 70, 6
    scores = rng.integers(4, 8, size=(n_papers, n_rounds)).astype(float)  # few values: many ties
    if decimal:  # decimal scores: block sums like 5.1 + 6.2 must tie exactly as in the reference
        scores = scores + rng.choice([0.1, 0.2, 0.3], size=scores.shape)
    groups = list(rng.choice(["ICLR 2017", "ICLR 2018", "NeurIPS 2019", None], size=n_papers))
    groups[0] = "alone"  # a group of one paper has no pairs
    for k in range(1, n_rounds // 2 + 1):
        a_sets, b_sets = partitions(n_rounds, k)
        first, second = _pairs_within(groups, n_papers)
        expected = compare_blocks(scores, a_sets, b_sets, first, second)
        assert rank_reproducibility(scores, k, groups) == expected
        assert rank_reproducibility(scores, k, None) == compare_blocks(
            scores, a_sets, b_sets, *np.triu_indices(n_papers, k=1))
