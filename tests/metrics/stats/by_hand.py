"""Reference computations written out from the formulas, for tests that must not use metrics.stats."""

import math
from itertools import combinations


def variance_upper_by_hand(v_hat: float, m: int, alpha: float, scale_min: float = 1,
                           scale_max: float = 10) -> float:
    """U: the root above V̂ of m·kl(V̂/B, U/B) = log(1/α), B = (b − a)²/2, capped at (b − a)²/4;
    by 200 bisection steps on kl written out with 0·log 0 = 0."""
    big_b, cap = (scale_max - scale_min) ** 2 / 2, (scale_max - scale_min) ** 2 / 4
    p, target = v_hat / big_b, math.log(1 / alpha)
    if m == 0:
        return cap

    def kl(q):
        return (p * math.log(p / q) if p else 0.0) + (1 - p) * math.log((1 - p) / (1 - q))
    lo, hi = p, 1 - 1e-15
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if m * kl(mid) < target else (lo, mid)
    return min(lo * big_b, cap)


def rank_counts_by_hand(scores: list[list[float]], k: int, groups: list[str]) -> tuple[int, int, int, int]:
    """(same, tie, reverse, partitions) by looping over every unordered {A, B} of k-blocks of the
    rounds and every pair of papers in the same group, comparing block means."""
    n = len(scores[0])
    seen, parts = set(), []
    for a in combinations(range(n), k):
        for b in combinations([r for r in range(n) if r not in a], k):
            key = frozenset([a, b])
            if key not in seen:
                seen.add(key)
                parts.append((a, b))
    same = tie = reverse = 0
    for a, b in parts:
        for i, j in combinations(range(len(scores)), 2):
            if groups[i] != groups[j]:
                continue
            da = sum(scores[i][r] for r in a) / k - sum(scores[j][r] for r in a) / k
            db = sum(scores[i][r] for r in b) / k - sum(scores[j][r] for r in b) / k
            if abs(da) < 1e-12 or abs(db) < 1e-12:
                tie += 1
            elif (da > 0) == (db > 0):
                same += 1
            else:
                reverse += 1
    return same, tie, reverse, len(parts)
