"""Trivial baselines: values worked out by hand, cross-checked against the standard library and scipy
where they implement the same quantity."""

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.stats.baselines import best_threshold_accuracy, constant_errors
from peerlake.metrics.stats.validity import validity_table


def test_constant_errors_by_hand():
    # mean 6; errors −2, 0, 2: MAE 4/3, RMSE √(8/3)
    mae, rmse = constant_errors([4, 6, 8])
    assert mae == pytest.approx(4 / 3) and rmse == pytest.approx(math.sqrt(8 / 3))
    assert rmse == pytest.approx(statistics.pstdev([4, 6, 8]))  # the population SD, as it must be
    assert all(math.isnan(x) for x in constant_errors([]))


def test_best_threshold_by_hand():
    # accept when score > t. t = −∞: 2/5; 3: 3/5; 5: 4/5; 6: 3/5; 7: 4/5 (a tie: the smaller t wins); 8: 3/5
    assert best_threshold_accuracy([3, 5, 6, 7, 8], [False, False, True, False, True]) == (5.0, 0.8)
    # every paper accepted: accepting all (t = −∞) is already perfect
    assert best_threshold_accuracy([4, 5], [True, True]) == (None, 1.0)
    t, acc = best_threshold_accuracy([], [])
    assert t is None and math.isnan(acc)


def test_validity_rows_carry_the_baselines_on_the_same_papers():
    papers = pd.DataFrame({
        "reviewer_config": ["c"] * 5, "paper_id": list("abcde"),
        "ai_score_mean": [7.0, 6.0, 5.0, 6.0, 8.0],
        "human_score_mean": [6.0, 5.0, 4.0, 3.0, 7.0],
        "review_chars_mean": [900.0, 1200.0, 300.0, None, 1500.0],
        "venue": ["V"] * 5, "year": [2025] * 5, "venue_year": ["V 2025"] * 5,
        "is_accepted": [True, False, False, False, True], "is_withdrawn": [False] * 5})
    row = validity_table(papers).set_index("scope").loc["all"]
    # constant = mean human 5: errors 1, 0, −1, −2, 2 → MAE 6/5, RMSE √2
    assert (row.baseline_constant_mae, row.baseline_constant_rmse) == (pytest.approx(1.2), pytest.approx(math.sqrt(2)))
    assert row.baseline_constant_auc == 0.5  # all tied
    # length over the four papers with one: (900, 6), (1200, 5), (300, 4), (1500, 7)
    lengths, humans = [900, 1200, 300, 1500], [6, 5, 4, 7]
    assert row.n_papers_with_length == 4
    assert row.baseline_length_pearson == pytest.approx(stats.pearsonr(lengths, humans).statistic)
    assert row.baseline_length_spearman == pytest.approx(0.8)  # ranks 2,3,1,4 vs 3,2,1,4: 1 − 6·2/60
    # AUC of length: accepted {900, 1500} vs rejected {1200, 300}: pairs won 1 + 2 = 3 of 4
    assert row.baseline_length_auc == pytest.approx(0.75)
    # human threshold: 3, 4, 5 rejected and 6, 7 accepted → t = 5 classifies every paper
    assert (row.baseline_human_threshold, row.baseline_human_threshold_accuracy) == (5.0, 1.0)
    assert row.baseline_human_mean_auc == 1.0 and row.n_papers_labeled_with_human == 5
    # the system on the same rule: scores 7, 6, 5, 6, 8 → t = 6 classifies all five
    assert (row.acceptance_threshold, row.acceptance_accuracy) == (6.0, 1.0)


def test_a_frame_without_lengths_gives_null_length_baselines():
    papers = pd.DataFrame({"reviewer_config": ["c"] * 3, "paper_id": list("abc"), "ai_score_mean": [1.0, 2.0, 3.0],
                           "human_score_mean": [1.0, 2.0, 3.0], "venue": [None] * 3, "year": [None] * 3,
                           "venue_year": [None] * 3, "is_accepted": [None] * 3, "is_withdrawn": [None] * 3})
    row = validity_table(papers).iloc[0]
    assert row.n_papers_with_length == 0 and np.isnan(row.baseline_length_pearson)
    assert np.isnan(row.baseline_constant_auc) and np.isnan(row.acceptance_accuracy)


def test_score_prediction_rows_carry_the_baselines_on_the_same_papers():
    from peerlake.metrics.stats.correlations import correlation_table

    papers = pd.DataFrame({
        "study_id": ["s"] * 4, "judge_config": ["j"] * 4, "source": ["peerlake"] * 4, "reviewer": ["r"] * 4,
        "venue": ["V"] * 4, "venue_year": [2025] * 4, "is_variant": [False] * 4, "paper_id": list("abcd"),
        "predicted_score": [5.0, 6.0, 3.0, None], "human_score_mean": [4.0, 8.0, 3.0, 6.0],
        "review_chars_mean": [1000.0, 3000.0, 2000.0, 500.0]})
    (row,) = correlation_table(papers).to_dict("records")
    # the three papers with both: |5−4| + |6−8| + |3−3| = 3 → MAE 1; constant 5: |−1| + 3 + |−2| → 2
    assert (row["n_papers"], row["mae"], row["baseline_constant_mae"]) == (3, 1.0, 2.0)
    # length over the same three: (1000, 4), (3000, 8), (2000, 3): ranks 1,3,2 vs 2,3,1 → ρ = 1 − 6·2/24 = 0.5
    assert row["n_papers_with_length"] == 3 and row["baseline_length_spearman"] == pytest.approx(0.5)
    assert row["baseline_length_pearson"] == pytest.approx(stats.pearsonr([1000, 3000, 2000], [4, 8, 3]).statistic)
    assert row["baseline_length_kendall_tau_b"] == pytest.approx(1 / 3)  # 2 concordant, 1 discordant of 3
    assert row["baseline_length_null_reason"] is None or pd.isna(row["baseline_length_null_reason"])
