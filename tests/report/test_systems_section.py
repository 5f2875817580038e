"""The report's reviewer-systems section on hand-made marts: a note (not a crash) when the mart is absent, one
line for a study without systems, the PRISM profile of a judged system and "not measured" with the reason for
what a mart lacks. (The page over a real dbt build: tests/dbt/test_system_marts.py.)"""

import pandas as pd

from peerlake.report import render_report
from tests.report.test_quality_section import _scores, _warehouse

SUMMARY = pd.DataFrame([
    {"study_id": "s", "system_summary_id": "s|cfg-mlr", "system_config": "cfg-mlr", "system_name": "mlr",
     "model": "gpt-t", "is_scored": True, "n_papers": 2, "n_reviews": 2, "n_null_reviews": 0,
     "top_null_reason": None, "n_reviews_cost_unknown": 0, "calls_per_review_mean": 5.0,
     "input_tokens_per_review_mean": 9000.0, "output_tokens_per_review_mean": 800.0,
     "cost_per_review_mean_usd": 0.0421, "cost_per_paper_mean_usd": 0.0421, "reference_cost_per_review_usd": 0.47,
     "reference_source": "seed-002 (h).3", "wall_seconds_per_review_mean": 61.5, "score_mean": 6.5,
     "score_sd": 0.71, "within_paper_sd": None},
    {"study_id": "s", "system_summary_id": "s|cfg-agent", "system_config": "cfg-agent", "system_name": "agentreview",
     "model": "gpt-t", "is_scored": True, "n_papers": 2, "n_reviews": 2, "n_null_reviews": 2,
     "top_null_reason": "review: unparseable answer", "n_reviews_cost_unknown": 0, "calls_per_review_mean": 3.0,
     "input_tokens_per_review_mean": 3000.0, "output_tokens_per_review_mean": 300.0,
     "cost_per_review_mean_usd": 0.01, "cost_per_paper_mean_usd": 0.01, "reference_cost_per_review_usd": None,
     "reference_source": None, "wall_seconds_per_review_mean": 20.0, "score_mean": None, "score_sd": None,
     "within_paper_sd": None},
])
COSTS = pd.DataFrame({"study_id": ["s"] * 4, "system_review_cost_id": ["a", "b", "c", "d"],
                      "system_config": ["cfg-mlr", "cfg-mlr", "cfg-agent", "cfg-agent"],
                      "system_name": ["mlr", "mlr", "agentreview", "agentreview"], "paper_id": ["P1", "P2"] * 2,
                      "sample_index": [0] * 4, "is_scored": [True] * 4, "overall_score": [6.0, 7.0, None, None]})
REPEATABILITY = pd.DataFrame({"study_id": ["s"], "repeatability_id": ["s|cfg-mlr"], "reviewer_config": ["cfg-mlr"],
                              "n_papers": [2], "within_paper_sd": [0.5]})
QUALITY = pd.DataFrame({"study_id": ["s"] * 2, "quality_comparison_id": ["q1", "q2"], "system": ["cfg-mlr"] * 2,
                        "metric": ["doa", "mcs"], "n_pairs": [2, 2], "mean_system": [0.25, 0.5],
                        **{c: [None, None] for c in ("mean_system_ci_low", "mean_system_ci_high", "mean_human_ci_low",
                                                     "mean_human_ci_high", "ci_low", "ci_high", "wilcoxon_p", "holm_p",
                                                     "cliffs_delta", "magnitude", "skip_reason")},
                        "mean_human": [0.5, 0.5], "mean_diff": [-0.25, 0.0], "bootstrap_seed": [42, 42],
                        "n_resamples": [100, 100]})


def _section(page: str) -> str:
    return page.split("<h2>Reviewer systems</h2>")[1].split("<h2>")[0]


def test_a_warehouse_without_the_mart_gets_a_note(tmp_path):
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("s")})
    page = render_report(db, "s")
    assert "Reviewer systems: not shown — the warehouse's <code>system_summary</code> is not there" in page


def test_a_study_without_systems_gets_one_line(tmp_path):
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("t"), "system_summary": SUMMARY,
                                            "system_review_costs": COSTS})
    assert "<h2>Reviewer systems</h2><p>This study runs no reviewer system.</p>" in render_report(db, "t")


def test_systems_with_scores_costs_and_a_prism_profile(tmp_path):
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("s"), "system_summary": SUMMARY,
                                            "system_review_costs": COSTS, "reliability_repeatability": REPEATABILITY,
                                            "quality_comparison": QUALITY})
    section = _section(render_report(db, "s"))
    # mlr: its cost beside the literature's; within-paper SD from reliability_repeatability (the summary had none)
    assert "<td>$0.0421</td>" in section and ">$0.4700</td>" in section and "<td>0.50</td>" in section
    assert "<td>6.50 ± 0.71</td>" in section
    # agentreview: both reviews null, so no score; the literature reports no cost for it
    assert "2 (most: review: unparseable answer)" in section
    assert "not measured: none reported" in section and "not measured: no parsed score" in section
    assert "not measured: no human scores of these papers" in section  # no validity mart here
    # the PRISM table: mlr judged on doa and mcs only; agentreview not judged at all
    prism = section.split("PRISM judges")[1]
    assert "<td>0.250</td>" in prism and "<td>0.500</td>" in prism
    assert prism.count("not measured: no such judgment") == 3  # mlr's ns, recall, nCPS
    assert prism.count("not measured: not judged") == 5
    assert section.count("<img") == 2  # costs, and the scores of the one system that gave any
    assert "system_summary:s|cfg-mlr" in section and "system_review_costs:a" in section
