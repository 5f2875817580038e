"""The maximum-weight one-to-one matching of many small matrices at once.

Review item lists are short (a handful of strengths or concerns), and a paper's reviews make
thousands of pairs, so one Hungarian call per pair (scipy's linear_sum_assignment) spends its time
in Python. For an a×b matrix with a ≤ b the matchings that use all a rows are the b!/(b−a)!
injective maps, a few dozen for lists of up to four; enumerating them over a stack of same-shape
matrices is a handful of numpy operations. Each candidate is summed in ascending row order, the
order in which `c[rows, cols].sum()` adds linear_sum_assignment's answer, so the best sum is the
same number (two optimal matchings may differ in the last bit when their sums tie exactly).
Larger shapes go to linear_sum_assignment one matrix at a time.
"""

from functools import cache
from itertools import permutations

import numpy as np
from scipy.optimize import linear_sum_assignment

# Above this many candidate matchings per shape, the Hungarian method per matrix is cheaper.
MAX_ENUMERATED = 720


@cache
def _matchings(a: int, b: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(rows, cols), each (candidates, min(a, b)) with rows ascending in each candidate; None when
    there are more than MAX_ENUMERATED candidates."""
    if a <= b:
        cols = list(permutations(range(b), a))
        if len(cols) > MAX_ENUMERATED:
            return None
        rows = [tuple(range(a))] * len(cols)
    else:  # more rows than columns: choose the b matched rows, in ascending row order
        rows, cols = [], []
        for picked in permutations(range(a), b):
            order = sorted(range(b), key=lambda j: picked[j])
            rows.append(tuple(picked[j] for j in order))
            cols.append(tuple(order))
        if len(rows) > MAX_ENUMERATED:
            return None
    return np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)


def best_matching_sums(c: np.ndarray) -> np.ndarray:
    """For a stack c of shape (n, a, b): each matrix's maximum-weight one-to-one matching sum."""
    c = np.asarray(c, dtype=float)
    n, a, b = c.shape
    if n == 0 or a == 0 or b == 0:
        return np.zeros(n)
    found = _matchings(a, b)
    if found is None:
        out = np.empty(n)
        for i in range(n):
            rows, cols = linear_sum_assignment(c[i], maximize=True)
            out[i] = c[i][rows, cols].sum()
        return out
    rows, cols = found
    best = np.full(n, -np.inf)
    for r, q in zip(rows, cols, strict=True):
        total = c[:, r[0], q[0]].copy()
        for t in range(1, r.size):
            total += c[:, r[t], q[t]]
        np.maximum(best, total, out=best)
    return best
