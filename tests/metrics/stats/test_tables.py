"""The reliability marts' bodies (the *_table functions beside their statistics in metrics.stats) on small
frames."""

import math

import numpy as np
import pandas as pd
import pytest

from peerlake.metrics.stats.budgets import budget_table
from peerlake.metrics.stats.ranking import close_pair_table, rank_reproducibility, rank_table, score_matrix
from peerlake.metrics.stats.repeatability import drift_table, variance_table
from peerlake.metrics.stats.validity import acceptance_auc, validity_table
from tests.metrics.stats.by_hand import variance_upper_by_hand


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


def test_variance_table_counts_certified_pairs_from_the_fewest_scores():
    # c1: a has 6 scores, b 5 (one answer failed), c 1 (not repeated); c2: one paper with 2.
    frame = pd.concat([long_scores("c1", {"a": [5, 6, 7, 5, 6, 7], "b": [4, 4, 5, 6, 4], "c": [9]}),
                       long_scores("c2", {"a": [3, 8]})])
    table = variance_table(frame).set_index("reviewer_config")
    c1 = table.loc["c1"]
    s2 = [np.var([5, 6, 7, 5, 6, 7], ddof=1), np.var([4, 4, 5, 6, 4], ddof=1)]
    assert (c1.n_papers, c1.n_papers_repeated, c1.reviews_per_repeated_paper_min) == (3, 2, 5)
    assert c1.variance_hat == pytest.approx(np.mean(s2))
    assert c1.within_paper_sd == pytest.approx(np.sqrt(np.mean(s2)))
    # N·⌊n_min/2⌋ = 2·2 = 4, not Σ⌊n_i/2⌋ = 3 + 2 = 5.
    assert c1.n_certified_pairs == 4 and c1.certified_pairs_rule == "n_papers*floor(n_min/2)"
    assert table.loc["c2"].n_certified_pairs == 1 and table.loc["c2"].variance_hat == pytest.approx(12.5)


def test_budget_table_two_tolerances_per_config_and_skips_configs_without_variance():
    var = pd.DataFrame({"reviewer_config": ["b", "a", "z"], "variance_hat": [0.8, 1.5, None],
                        "n_papers_repeated": [20, 30, 0], "reviews_per_repeated_paper_min": [4, 3, None],
                        "n_certified_pairs": [40, 30, 0], "certified_pairs_rule": ["n_papers*floor(n_min/2)"] * 3})
    table = budget_table(var, [0.25, 0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)
    assert list(zip(table.reviewer_config, table.tolerance, strict=True)) == [
        ("a", 0.25), ("a", 0.5), ("b", 0.25), ("b", 0.5)]
    row = table.iloc[1]
    u = variance_upper_by_hand(1.5, 30, 0.05)
    assert row.variance_upper == pytest.approx(u, rel=1e-9)
    assert (row.n_pairs, row.reviews_per_paper_min, row.certified_pairs_rule) == (30, 3, "n_papers*floor(n_min/2)")
    assert (row.planning_budget, row.certified_budget, row.range_only_budget) == (
        math.ceil(1.5 / (0.05 * 0.25)), math.ceil(u / (0.05 * 0.25)), math.ceil(81 * math.log(40) / 0.5))
    assert str(table.dtypes["certified_budget"]) == "int64"


def test_empty_inputs_give_typed_empty_marts():
    var = variance_table(pd.DataFrame(columns=["reviewer_config", "paper_id", "sample_index", "overall_score"]))
    budgets = budget_table(var, [0.25, 0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)
    assert var.empty and budgets.empty and str(budgets.dtypes["planning_budget"]) == "int64"
    papers = pd.DataFrame(columns=["reviewer_config", "paper_id", "ai_score_mean", "human_score_mean",
                                   "venue", "year", "venue_year", "is_accepted", "is_withdrawn"])
    assert validity_table(papers).empty


def test_every_table_is_keyed_by_study_when_the_scores_carry_one():
    """The same configuration in two studies: two rows each, study_id first, numbers never pooled."""
    demo = long_scores("c", {"p1": [5, 6, 7, 4], "p2": [6, 6, 5, 5], "p3": [3, 8, 8, 2]})
    mine = long_scores("c", {"u1": [9, 9, 8, 9], "u2": [2, 3, 2, 2]})
    frame = pd.concat([demo.assign(study_id="demo"), mine.assign(study_id="mine")])
    tables = {"drift": drift_table(frame), "variance": variance_table(frame), "rank": rank_table(frame),
              "close": close_pair_table(frame)}
    for name, table in tables.items():
        assert list(table.columns[:2]) == ["study_id", "reviewer_config"], name
        assert set(table["study_id"]) == {"demo", "mine"}, name
    var = tables["variance"].set_index("study_id")
    assert var.loc["mine", "variance_hat"] == pytest.approx(np.mean([np.var([9, 9, 8, 9], ddof=1),
                                                                     np.var([2, 3, 2, 2], ddof=1)]))
    assert var.loc["demo", "n_papers"] == 3 and var.loc["mine", "n_papers"] == 2
    rank = tables["rank"].set_index(["study_id", "k"])
    assert rank.loc[("mine", 1), "n_pairs"] == 1 and rank.loc[("demo", 1), "n_pairs"] == 3
    budgets = budget_table(tables["variance"], [0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)
    assert list(budgets.columns[:3]) == ["study_id", "budget_id", "reviewer_config"]
    assert sorted(budgets["budget_id"]) == ["demo|c|eps=0.5", "mine|c|eps=0.5"]
    papers = pd.DataFrame({"study_id": ["demo", "demo", "mine", "mine"], "reviewer_config": ["c"] * 4,
                           "paper_id": ["p1", "p2", "u1", "u2"], "ai_score_mean": [5.5, 5.5, 8.75, 2.25],
                           "human_score_mean": [5.0, 6.0, 8.0, 3.0], "venue": [None] * 4, "year": [None] * 4,
                           "venue_year": [None] * 4, "is_accepted": [True, False, True, False],
                           "is_withdrawn": [False] * 4})
    validity = validity_table(papers).set_index("validity_id")
    assert list(validity.index) == ["demo|c|all", "mine|c|all"]
    assert validity.loc["demo|c|all", "acceptance_auc"] == 0.5 and validity.loc["mine|c|all", "acceptance_auc"] == 1
    # Without a study_id column the tables keep today's shape.
    assert "study_id" not in drift_table(demo) and list(budget_table(
        variance_table(demo), [0.5], alpha=0.05, beta=0.05, scale_min=1, scale_max=10)["budget_id"]) == ["c|eps=0.5"]
