"""Reliability statistics for AI review scores: small pure functions over numpy arrays.

repeatability: within-paper variance and SD, agreement, drift · validity: correlations, errors, the
acceptance AUC · ranking: exact partition enumeration for rank reproducibility, close pairs ·
budgets: how many reviews are enough (Chebyshev planning, KL-certified, Hoeffding range-only) ·
bootstrap: the paper-level percentile interval. One implementation of each statistic: the
distribution and granularity code imports these. Each module also holds its marts' bodies (drift_table,
rank_table, validity_table, budget_table, …); keys: how those tables are keyed and typed.
"""

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.budgets import (
    CERTIFIED_PAIRS_RULE,
    Budgets,
    certified_budget,
    certified_pairs,
    compute_budgets,
    kl_bernoulli,
    planning_budget,
    range_only_budget,
    variance_upper_bound,
)
from peerlake.metrics.stats.ranking import (
    CLOSE_PAIR_BINS,
    Comparison,
    close_pairs,
    compare_blocks,
    n_partitions,
    partitions,
    rank_reproducibility,
)
from peerlake.metrics.stats.repeatability import (
    Drift,
    drift_bootstrap,
    pairwise_agreement,
    paper_variances,
    pooled_variance,
    within_paper_sd,
)
from peerlake.metrics.stats.validity import Agreement, acceptance_auc, agreement_with_humans

__all__ = [
    "CERTIFIED_PAIRS_RULE",
    "CLOSE_PAIR_BINS",
    "Agreement",
    "Budgets",
    "Comparison",
    "Drift",
    "acceptance_auc",
    "agreement_with_humans",
    "bootstrap_mean_ci",
    "certified_budget",
    "certified_pairs",
    "close_pairs",
    "compare_blocks",
    "compute_budgets",
    "drift_bootstrap",
    "kl_bernoulli",
    "n_partitions",
    "pairwise_agreement",
    "paper_variances",
    "partitions",
    "planning_budget",
    "pooled_variance",
    "range_only_budget",
    "rank_reproducibility",
    "variance_upper_bound",
    "within_paper_sd",
]
