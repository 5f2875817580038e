"""How many reviews are enough? Budgets for the mean of k new scores to land within ε of μ_i.

Target: A(k, ε) = mean over papers of P(|mean of k new scores − μ_i| < ε) ≥ 1 − β. Chebyshev gives
A(k, ε) ≥ 1 − V/(k ε²), so k = ⌈V / (β ε²)⌉ for a variance V: V̂ for planning, the upper
confidence bound U for a certified budget. Budgets count new reviews beyond the pilot.
"""

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import pandas as pd
from scipy.optimize import brentq
from scipy.special import xlogy

from peerlake.metrics.stats.keys import join_id, key_columns, keyed_columns, typed_frame

# A ratio like 0.5 / (0.05 · 0.5²) is 40 on paper but 40.000000000000007 in floats; rounding before
# the ceiling keeps such exact ratios from costing one extra review.
_CEIL_DECIMALS = 9


def _ceil(x: float) -> int:
    return math.ceil(round(x, _CEIL_DECIMALS))


def kl_bernoulli(p: float, q: float) -> float:
    """kl(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)), with 0 log 0 = 0."""
    return float(xlogy(p, p) - xlogy(p, q) + xlogy(1 - p, 1 - p) - xlogy(1 - p, 1 - q))


def _check(name: str, ok: bool, value) -> None:
    if not ok:
        raise ValueError(f"{name}={value!r} is out of range")


def variance_upper_bound(variance_hat: float, n_pairs: int, alpha: float, *,
                         scale_min: float = 1, scale_max: float = 10) -> float:
    """U: the root above V̂ of M·kl(V̂/B, U/B) = log(1/α), B = (b − a)²/2, capped at (b − a)²/4.

    M = n_pairs independent disjoint score pairs; each (Y1 − Y2)²/2 lies in [0, B] and has mean V,
    so the Chernoff–KL bound gives P(V > U) ≤ α. No pilot (M = 0) leaves only the cap."""
    _check("alpha", 0 < alpha < 1, alpha)
    _check("n_pairs", n_pairs >= 0, n_pairs)
    _check("scale_max", scale_max > scale_min, scale_max)
    width2 = (scale_max - scale_min) ** 2
    big_b, cap = width2 / 2, width2 / 4
    _check("variance_hat", 0 <= variance_hat <= big_b, variance_hat)
    p = variance_hat / big_b
    if n_pairs == 0 or p >= 1:
        return cap
    target = math.log(1 / alpha)
    # f(p) = −log(1/α) < 0 and f → +∞ as q → 1, so exactly one root lies in (p, 1).
    hi = math.nextafter(1.0, 0.0)
    q = brentq(lambda q: n_pairs * kl_bernoulli(p, q) - target, p, hi, xtol=1e-15, rtol=1e-14)
    return min(q * big_b, cap)


# How M is counted when papers have unequal numbers of parsed scores (failed or unparsable answers).
# V̂ weighs every paper 1/N whatever its n_i, so Σ⌊n_i/2⌋ equally weighted pairs would overstate the
# information in papers with few scores and make U too small. Each S_i² is the average over
# permutations of the mean of any m ≤ ⌊n_i/2⌋ disjoint pairs, so by Jensen V̂ obeys the same
# Chernoff–KL tail as N·m independent pairs with m = ⌊n_min/2⌋ (Hoeffding 1963, §5): valid, and
# equal to N·⌊n/2⌋ when every paper has n scores.
CERTIFIED_PAIRS_RULE = "n_papers*floor(n_min/2)"


def certified_pairs(score_counts) -> int:
    """M for the certified bound from each repeated paper's number of scores: N·⌊n_min/2⌋."""
    counts = [int(c) for c in score_counts]
    if any(c < 2 for c in counts):
        raise ValueError(f"certified pairs: every paper needs at least 2 scores, got {sorted(counts)[:5]}")
    return len(counts) * (min(counts) // 2) if counts else 0


def planning_budget(variance: float, tolerance: float, beta: float) -> int:
    """⌈V / (β ε²)⌉, at least 1 (a mean of k new scores needs k ≥ 1)."""
    _check("tolerance", tolerance > 0, tolerance)
    _check("beta", 0 < beta < 1, beta)
    _check("variance", variance >= 0, variance)
    return max(1, _ceil(variance / (beta * tolerance ** 2)))


def certified_budget(variance_upper: float, tolerance: float, beta: float) -> int:
    """⌈U / (β ε²)⌉: the planning formula with the upper confidence bound U for V."""
    return planning_budget(variance_upper, tolerance, beta)


def range_only_budget(tolerance: float, beta: float, *, scale_min: float = 1,
                      scale_max: float = 10) -> int:
    """Hoeffding, no pilot: ⌈(b − a)² · log(2/β) / (2 ε²)⌉."""
    _check("tolerance", tolerance > 0, tolerance)
    _check("beta", 0 < beta < 1, beta)
    _check("scale_max", scale_max > scale_min, scale_max)
    return _ceil((scale_max - scale_min) ** 2 * math.log(2 / beta) / (2 * tolerance ** 2))


@dataclass(frozen=True)
class Budgets:
    variance_hat: float
    variance_upper: float
    planning_budget: int
    certified_budget: int
    range_only_budget: int
    n_papers: int
    pilot_reviews: int
    n_pairs: int
    tolerance: float
    alpha: float
    alpha_per_config: float
    beta: float
    n_configs: int
    scale_min: float
    scale_max: float

    def as_dict(self) -> dict:
        return asdict(self)


def compute_budgets(variance_hat: float, n_papers: int, pilot_reviews: int, tolerance: float, *,
                    alpha: float = 0.05, beta: float = 0.05, scale_min: float = 1,
                    scale_max: float = 10, n_configs: int = 1, n_pairs: int | None = None) -> Budgets:
    """All three budgets for one configuration. M = N·⌊n/2⌋ unless n_pairs is given (papers with
    unequal numbers of scores: certified_pairs(counts) = N·⌊n_min/2⌋, never Σ⌊n_i/2⌋).
    Simultaneous control over m configs uses α/m each."""
    _check("n_papers", n_papers >= 0, n_papers)
    _check("pilot_reviews", pilot_reviews >= 0, pilot_reviews)
    _check("n_configs", n_configs >= 1, n_configs)
    pairs = n_papers * (pilot_reviews // 2) if n_pairs is None else n_pairs
    alpha_each = alpha / n_configs
    upper = variance_upper_bound(variance_hat, pairs, alpha_each,
                                 scale_min=scale_min, scale_max=scale_max)
    return Budgets(
        variance_hat=variance_hat, variance_upper=upper,
        planning_budget=planning_budget(variance_hat, tolerance, beta),
        certified_budget=certified_budget(upper, tolerance, beta),
        range_only_budget=range_only_budget(tolerance, beta, scale_min=scale_min,
                                            scale_max=scale_max),
        n_papers=n_papers, pilot_reviews=pilot_reviews, n_pairs=pairs, tolerance=tolerance,
        alpha=alpha, alpha_per_config=alpha_each, beta=beta, n_configs=n_configs,
        scale_min=scale_min, scale_max=scale_max)


BUDGET_COLUMNS = {"budget_id": "string", "reviewer_config": "string", "tolerance": "float64", "alpha": "float64",
                  "alpha_per_config": "float64", "beta": "float64", "n_configs": "int64",
                  "scale_min": "float64", "scale_max": "float64", "n_papers": "int64",
                  "reviews_per_paper_min": "int64", "n_pairs": "int64",
                  "certified_pairs_rule": "string", "variance_hat": "float64",
                  "variance_upper": "float64", "planning_budget": "int64",
                  "certified_budget": "int64", "range_only_budget": "int64"}


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
    return typed_frame(rows, keyed_columns(variance, BUDGET_COLUMNS))
