"""The dbt Python models' bodies (metrics.stats.tables) on small frames."""

import numpy as np
import pandas as pd
import pytest

from metrics.stats.budgets import compute_budgets
from metrics.stats.ranking import rank_reproducibility
from metrics.stats.tables import (
    budget_table,
    drift_table,
    rank_table,
    score_matrix,
    validity_table,
)
from metrics.stats.validity import acceptance_auc


def long_scores(config: str, matrix: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"reviewer_config": config, "paper_id": p, "sample_index": i,
                          "overall_score": s} for p, scores in matrix.items()
                         for i, s in enumerate(scores)])


def test_score_matrix_uses_the_most_common_count_and_first_rounds():
    papers = {"a": np.array([1, 2, 3, 4.]), "b": np.array([5, 6, 7.]), "c": np.array([2, 2, 2.]),
              "d": np.array([9.]), "e": np.array([3, 4.])}
    ids, matrix, excluded = score_matrix(papers)
    assert ids == ["a", "b", "c"] and excluded == 2
    assert matrix.tolist() == [[1, 2, 3], [5, 6, 7], [2, 2, 2]]


def test_rank_table_rows_per_k_and_round_order_from_sample_index():
    matrix = {"p1": [5, 6, 7, 4], "p2": [6, 6, 5, 5], "p3": [3, 8, 8, 2]}
    frame = long_scores("c1", matrix).sample(frac=1, random_state=0)  # order must not matter
    table = rank_table(frame)
    assert table["k"].tolist() == [1, 2]
    for row in table.itertuples():
        c = rank_reproducibility(np.array(list(matrix.values()), dtype=float), row.k)
        assert (row.n_same, row.n_tie, row.n_reverse, row.n_partitions) == (
            c.n_same, c.n_tie, c.n_reverse, c.n_partitions)


def test_drift_table_on_an_empty_frame_is_typed_and_empty():
    empty = pd.DataFrame(columns=["reviewer_config", "paper_id", "sample_index", "overall_score"])
    assert drift_table(empty).empty and rank_table(empty).empty
    assert str(drift_table(empty).dtypes["drift_shift"]) == "float64"


def test_validity_table_overall_and_per_venue_year_with_withdrawn_left_out():
    papers = pd.DataFrame({
        "reviewer_config": ["c"] * 6,
        "paper_id": list("abcdef"),
        "ai_score_mean": [7.0, 6.0, 5.0, 6.0, 8.0, 4.0],
        "human_score_mean": [6.0, 5.0, 4.0, None, 7.0, 3.0],
        "venue": ["ICLR 2017"] * 3 + ["ICLR 2018"] * 3,
        "year": [2017] * 3 + [2018] * 3,
        "venue_year": ["ICLR 2017"] * 3 + ["ICLR 2018"] * 3,
        "is_accepted": [True, False, False, False, True, None],
        "is_withdrawn": [False, False, True, False, False, None],
    })
    table = validity_table(papers).set_index("scope")
    assert list(table.index) == ["all", "venue_year:ICLR 2017", "venue_year:ICLR 2018"]
    overall = table.loc["all"]
    assert overall.n_papers == 5 and overall.n_papers_labeled == 5
    assert overall.acceptance_auc == pytest.approx(
        acceptance_auc([7, 6, 5, 6, 8], [True, False, False, False, True]))
    assert overall.n_papers_labeled_not_withdrawn == 4
    assert overall.acceptance_auc_excluding_withdrawn == pytest.approx(
        acceptance_auc([7, 6, 6, 8], [True, False, False, True]))
    # 2017: a, b, c all rated, AI = human + 1 -> perfect correlation, MAE 1.
    y17 = table.loc["venue_year:ICLR 2017"]
    assert (y17.n_papers, y17.pearson, y17.mae, y17.year) == (3, pytest.approx(1.0), 1.0, 2017)
    assert table.loc["venue_year:ICLR 2018"].n_papers == 2


def test_budget_table_two_tolerances_per_config_and_skips_configs_without_variance():
    rep = pd.DataFrame({"reviewer_config": ["b", "a", "z"], "variance_hat": [0.8, 1.5, None],
                        "n_papers_repeated": [20, 30, 0], "n_disjoint_pairs": [40, 45, 0]})
    table = budget_table(rep, [0.25, 0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)
    assert list(zip(table.reviewer_config, table.tolerance)) == [
        ("a", 0.25), ("a", 0.5), ("b", 0.25), ("b", 0.5)]
    row = table.iloc[1]
    expected = compute_budgets(1.5, 30, 0, 0.5, n_pairs=45)
    assert (row.planning_budget, row.certified_budget, row.range_only_budget) == (
        expected.planning_budget, expected.certified_budget, expected.range_only_budget)
    assert str(table.dtypes["certified_budget"]) == "int64"


def test_empty_inputs_give_typed_empty_marts():
    rep = pd.DataFrame(columns=["reviewer_config", "variance_hat", "n_papers_repeated", "n_disjoint_pairs"])
    budgets = budget_table(rep, [0.25, 0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)
    assert budgets.empty and str(budgets.dtypes["planning_budget"]) == "int64"
    papers = pd.DataFrame(columns=["reviewer_config", "paper_id", "ai_score_mean", "human_score_mean",
                                   "venue", "year", "venue_year", "is_accepted", "is_withdrawn"])
    assert validity_table(papers).empty
