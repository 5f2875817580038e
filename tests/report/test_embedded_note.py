"""The report page says its numbers are test numbers when the study's reviewers or judges ran on an
embedded local model, and says nothing of the kind for a hosted model's study."""

import duckdb
import pandas as pd

from peerlake.report import render_report
from peerlake.report.data import ReportData
from peerlake.report.embedded import embedded_models
from peerlake.warehouse.settings import LOCAL_MODEL_NAME, LOCAL_SMALL_MODEL_NAME

WARNING = "Test numbers, not findings."


def _scores(study: str, model: str) -> pd.DataFrame:
    return pd.DataFrame({"study_id": [study] * 2, "reviewer_config": ["c-" + study] * 2,
                         "prompt_template": ["reviewer_scoring"] * 2, "model": [model] * 2, "paper_id": ["A", "B"],
                         "overall_score": [6.0, 5.0], "is_parsed": [True, True]})


def test_the_page_of_a_study_on_the_embedded_model_says_its_numbers_mean_nothing(tmp_path):
    db = tmp_path / "peerlake.duckdb"
    with duckdb.connect(str(db)) as con:
        con.register("df", pd.concat([_scores("toy", LOCAL_MODEL_NAME), _scores("real", "gpt-4.1")]))
        con.execute("create table fct_ai_review_scores as select * from df")
    toy = render_report(db, study="toy")
    assert WARNING in toy and "a 1.5B-parameter model" in toy and LOCAL_MODEL_NAME in toy
    assert "--model openai/gpt-4.1" in toy
    assert WARNING not in render_report(db, study="real")  # the marts hold both; each page its own


def test_a_judge_on_the_embedded_model_counts_too():
    data = ReportData({"fct_ai_review_scores": _scores("s", "gpt-4.1"),
                       "quality_depth": pd.DataFrame({"judge_model": [LOCAL_SMALL_MODEL_NAME, None]})})
    assert embedded_models(data) == [LOCAL_SMALL_MODEL_NAME]
    assert embedded_models(ReportData({"fct_ai_review_scores": _scores("s", "gpt-4.1")})) == []
