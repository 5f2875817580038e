"""Within-paper variance, agreement and drift; validity statistics and AUC with ties counted ½."""

import statistics
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest

from peerlake.metrics.stats.repeatability import (
    drift_bootstrap,
    pairwise_agreement,
    paper_variances,
    pooled_variance,
)
from peerlake.metrics.stats.validity import acceptance_auc, agreement_with_humans


def test_variances_and_pooled_variance_match_statistics_module():
    papers = [[4, 4], [4, 6], [3, 5, 7], [1]]
    assert paper_variances(papers).tolist() == [0.0, 2.0, 4.0]
    assert pooled_variance(papers) == pytest.approx(statistics.mean(
        statistics.variance(p) for p in papers if len(p) > 1))
    assert np.isnan(pooled_variance([[3]]))


@pytest.mark.parametrize("scores", [[5, 5, 6], [2, 9, 9, 9], [1, 2, 3], [7, 7]])
def test_pairwise_agreement_counts_equal_pairs(scores):
    pairs = list(combinations(scores, 2))
    assert pairwise_agreement(scores) == pytest.approx(sum(a == b for a, b in pairs) / len(pairs))


def test_pairwise_agreement_needs_two_scores():
    with pytest.raises(ValueError, match="at least 2"):
        pairwise_agreement([5])


def test_drift_halves_by_round_order_and_is_reproducible():
    # n = 5: early = rounds 1..2, late = rounds 3..5.
    rounds = [[4, 6, 5, 5, 8], [3, 3, 3, 4, 5], [7, 7, 6, 6, 6]]
    d = drift_bootstrap(rounds)
    early = [5.0, 3.0, 7.0]
    late = [6.0, 4.0, 6.0]
    assert (d.mean_early, d.mean_late) == pytest.approx((np.mean(early), np.mean(late)))
    assert d.shift == pytest.approx(np.mean(np.subtract(late, early)))
    assert d.n_papers == 3
    assert drift_bootstrap(rounds) == d  # fixed seed
    # Every bootstrap mean of per-paper differences [1, 1, −1] lies in [−1, 1].
    assert -1 <= d.ci_low <= d.shift <= d.ci_high <= 1


def test_drift_interval_matches_the_normal_approximation_on_many_papers():
    rng = np.random.default_rng(11)
    rounds = rng.normal(5, 1, size=(400, 4)) + np.array([0, 0, 0.3, 0.3])
    d = drift_bootstrap(rounds)
    diff = rounds[:, 2:].mean(1) - rounds[:, :2].mean(1)
    half_width = 1.96 * diff.std(ddof=1) / np.sqrt(diff.size)
    assert d.ci_high - d.ci_low == pytest.approx(2 * half_width, rel=0.1)
    assert d.ci_low < 0.3 < d.ci_high


def test_constant_differences_give_a_point_interval():
    d = drift_bootstrap([[5, 6], [4, 5], [7, 8]])
    assert d.shift == d.ci_low == d.ci_high == 1.0


def test_agreement_with_humans_against_pandas_and_numpy():
    ai = np.array([5.5, 6.0, 7.25, 4.0, 8.0, 6.0])
    human = np.array([4.0, 6.5, 7.0, 3.0, 6.0, 5.0])
    a = agreement_with_humans(ai, human)
    frame = pd.DataFrame({"ai": ai, "h": human})
    assert a.pearson == pytest.approx(frame.corr(method="pearson").iloc[0, 1])
    assert a.spearman == pytest.approx(frame.corr(method="spearman").iloc[0, 1])  # average ranks for ties
    assert a.mae == pytest.approx(np.mean(np.abs(ai - human)))
    assert a.rmse == pytest.approx(np.sqrt(np.mean((ai - human) ** 2)))
    flat = agreement_with_humans([5, 5, 5], [1, 2, 3])
    assert np.isnan(flat.pearson) and flat.mae == pytest.approx((4 + 3 + 2) / 3)


def brute_auc(scores, accepted):
    pos = [s for s, a in zip(scores, accepted, strict=False) if a]
    neg = [s for s, a in zip(scores, accepted, strict=False) if not a]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_auc_counts_ties_as_half():
    # Hand: accepted [6, 8], rejected [6, 5]: (6,6) ½, (6,5) 1, (8,6) 1, (8,5) 1 -> 3.5 / 4.
    assert acceptance_auc([6, 8, 6, 5], [True, True, False, False]) == 0.875
    rng = np.random.default_rng(5)
    for _ in range(20):
        scores = rng.integers(1, 6, size=15).astype(float)
        labels = rng.random(15) < 0.4
        if labels.any() and (~labels).any():
            assert acceptance_auc(scores, labels) == pytest.approx(brute_auc(scores, labels), abs=1e-12)
    assert np.isnan(acceptance_auc([5, 6], [True, True]))


def test_validity_table_gives_the_same_last_digit_in_any_row_order():
    # dbt hands a Python model its rows in no fixed order; a float sum depends on the order it adds in.
    from peerlake.metrics.stats.validity import validity_table

    rng = np.random.default_rng(7)
    n = 40
    papers = pd.DataFrame({
        "reviewer_config": ["c1"] * n, "paper_id": [f"p{i:02d}" for i in range(n)],
        "ai_score_mean": rng.uniform(1, 10, n) / 3, "human_score_mean": rng.uniform(1, 10, n) / 7,
        "venue": ["ICLR"] * n, "year": [2017] * n, "venue_year": ["ICLR 2017"] * n,
        "is_accepted": rng.integers(0, 2, n).astype(bool), "is_withdrawn": [False] * n})
    first = validity_table(papers)
    for seed in range(5):
        shuffled = validity_table(papers.sample(frac=1, random_state=seed).reset_index(drop=True))
        for column in ("pearson", "mae", "rmse"):
            assert shuffled[column].tolist() == first[column].tolist()
