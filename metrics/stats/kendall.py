"""Same / tie / reverse pair counts between two orderings of the same items, in O(P log P) each.

For P items with scores x and y, a pair is *same* (concordant) when x and y order it the same way,
*reverse* (discordant) when they order it opposite ways, and *tie* when x or y ties it. Counting
every pair is O(P²); Knight's method (the one behind Kendall's τ-b) needs a sort and a merge sort:

- sort by (x, y): a discordant pair is then exactly an inversion of y (i before j, y_i > y_j);
  pairs tied in x are sorted by y and so never inverted. The merge sort counts the inversions.
- with n0 = P(P−1)/2 and the tie counts n1 (tied in x), n2 (tied in y), n3 (tied in both):
  same = n0 − n1 − n2 + n3 − reverse, and tie = n1 + n2 − n3.

Rows are independent orderings (e.g. one row per partition of review rounds) and are counted
together with numpy: a stable, vectorized bottom-up merge sort whose every level is one sort of
small packed integers per block. Inputs are dense ranks (equal scores ⇔ equal ranks), so packed
keys stay exact for any scores.
"""

import numpy as np

# Elements per chunk of rows: bounds the packed-key arrays at a few MB each.
CHUNK_ELEMENTS = 1 << 20


def dense_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: dense ranks (0 = smallest, equal values share a rank) and the row's tied pairs."""
    values = np.asarray(values)
    order = np.argsort(values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    equal = ordered[:, 1:] == ordered[:, :-1]
    ranks_sorted = np.zeros(values.shape, dtype=np.int64)
    np.cumsum(~equal, axis=1, out=ranks_sorted[:, 1:])
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    return ranks, tied_pairs(equal)


def tied_pairs(equal: np.ndarray) -> np.ndarray:
    """Per row, pairs of equal elements of a sorted row given equal[:, i] = (row[i+1] == row[i])."""
    positions = np.arange(1, equal.shape[1] + 1, dtype=np.int64)
    # each element is tied with every earlier element of its run: position − start of its run
    run_start = np.maximum.accumulate(np.where(equal, 0, positions), axis=1)
    return (positions - run_start).sum(axis=1)


def _key_dtype(bits: int) -> type:
    """The smallest integer type holding a packed merge key of 2·bits + 1 bits."""
    return np.int16 if 2 * bits + 1 <= 15 else (np.int32 if 2 * bits + 1 <= 31 else np.int64)


def inversions(ranks: np.ndarray, bits: int) -> int:
    """Pairs i < j with ranks[r, i] > ranks[r, j], summed over rows; ranks are ints in [0, 2**bits).

    Bottom-up merge sort over rows padded to 2**bits with the largest rank (padding at the end
    inverts nothing). Merging two sorted halves L, R of width w: sorting the block by the packed key
    (rank, half, index in half) puts equal ranks of L before R, so a right element found at block
    position p with index q has p − q elements of L at or below it, and w − (p − q) above it."""
    rows, m = ranks.shape
    width = 1 << bits
    dtype = _key_dtype(bits)
    v = np.full((rows, width), width - 1, dtype=dtype)
    v[:, :m] = ranks
    if width < 2:
        return 0
    # first level by hand: a block of two is inverted iff its first element is larger
    first, second = v[:, 0::2], v[:, 1::2]
    total = int(np.count_nonzero(first > second))
    v = np.stack([np.minimum(first, second), np.maximum(first, second)], axis=2).reshape(rows, width)
    w = 2
    while w < width:
        pos = np.arange(2 * w, dtype=dtype)
        tag = np.where(pos >= w, (1 << bits) | (pos - w), pos).astype(dtype)
        keys = (v.reshape(-1, 2 * w) << (bits + 1)) | tag
        keys.sort(axis=1)
        is_right = (keys & (1 << bits)) != 0
        above = w - pos + (keys & (width - 1))  # left elements above each right one
        total += int(np.where(is_right, above, 0).sum(dtype=np.int64))
        v = (keys >> (bits + 1)).reshape(rows, width)
        w *= 2
    return total


def pair_counts(x_ranks: np.ndarray, y_ranks: np.ndarray, x_ties: int | None = None,
                y_ties: int | None = None) -> tuple[int, int, int]:
    """(same, tie, reverse) summed over rows, for row-wise dense ranks x_ranks, y_ranks of shape
    (rows, P). x_ties / y_ties: the rows' tied pairs in x / y when the caller already has them."""
    x_ranks, y_ranks = np.asarray(x_ranks), np.asarray(y_ranks)
    rows, p = x_ranks.shape
    if p < 2 or rows == 0:
        return 0, 0, 0
    bits = max(1, (p - 1).bit_length())
    if x_ties is None:
        x_ties = int(tied_pairs(np.diff(np.sort(x_ranks, axis=1), axis=1) == 0).sum())
    if y_ties is None:
        y_ties = int(tied_pairs(np.diff(np.sort(y_ranks, axis=1), axis=1) == 0).sum())
    both = reverse = 0
    step = max(1, CHUNK_ELEMENTS // (1 << bits))
    for start in range(0, rows, step):
        xr, yr = x_ranks[start:start + step], y_ranks[start:start + step]
        key = (xr.astype(np.int64) << bits) | yr  # sorting by it sorts by (x, y)
        key.sort(axis=1)
        both += int(tied_pairs(key[:, 1:] == key[:, :-1]).sum())
        reverse += inversions(key & ((1 << bits) - 1), bits)
    n0 = rows * p * (p - 1) // 2
    tie = x_ties + y_ties - both
    return n0 - tie - reverse, tie, reverse
