"""Reliability statistics for AI review scores: small pure functions over numpy arrays.

repeatability: within-paper variance, agreement, drift · validity: correlations, errors, AUC ·
ranking: exact partition enumeration for rank reproducibility, close pairs · budgets: how many
reviews are enough (Chebyshev planning, KL-certified, Hoeffding range-only).
"""

from metrics.stats.budgets import (
    Budgets,
    certified_budget,
    compute_budgets,
    kl_bernoulli,
    planning_budget,
    range_only_budget,
    variance_upper_bound,
)
from metrics.stats.ranking import (
    CLOSE_PAIR_BINS,
    Comparison,
    close_pairs,
    compare_blocks,
    n_partitions,
    partitions,
    rank_reproducibility,
)
from metrics.stats.repeatability import (
    Drift,
    drift_bootstrap,
    pairwise_agreement,
    paper_variances,
    pooled_variance,
)
from metrics.stats.validity import Agreement, acceptance_auc, agreement_with_humans

__all__ = [
    "Agreement", "Budgets", "CLOSE_PAIR_BINS", "Comparison", "Drift", "acceptance_auc",
    "agreement_with_humans", "certified_budget", "close_pairs", "compare_blocks", "compute_budgets",
    "drift_bootstrap", "kl_bernoulli", "n_partitions", "pairwise_agreement", "paper_variances",
    "partitions", "planning_budget", "pooled_variance", "range_only_budget", "rank_reproducibility",
    "variance_upper_bound",
]
