"""The reviewer-system suites on hand-made frames: valid rows pass; an unknown cost shown as 0, a score off the
scale, a score on an unscored system or a null review, a wall time longer than the model time, a review neither
ok nor null, a null review without its reason each fail, named. The ai_review_scores suite takes a reviewer
system's review without an llm_call. (That the built marts pass: tests/dbt/test_system_marts.py.)"""

import pandas as pd

from peerlake.expectations import validate_frame
from tests.expectations.test_gates import scores

COSTS = [  # tests/dbt/systems_lake.py's S/cfg-ai P1/0, S/cfg-ai P2/1 (null) and S/cfg-llm P2/0 (unpriced)
    {"system_review_cost_id": "S|cfg-ai|P1|0", "study_id": "S", "system_name": "ai-scientist",
     "system_config": "cfg-ai", "paper_id": "P1", "sample_index": 0, "status": "ok", "is_scored": True,
     "overall_score": 6.0, "n_calls": 5, "n_calls_missing": 0, "n_error_attempts": 0, "n_calls_unpriced": 0,
     "n_calls_made_by_study": 5, "input_tokens": 5000, "output_tokens": 500, "cost_usd": 0.028,
     "is_cost_complete": True, "model_seconds": 34.0, "wall_seconds": 20.0},
    {"system_review_cost_id": "S|cfg-ai|P2|1", "study_id": "S", "system_name": "ai-scientist",
     "system_config": "cfg-ai", "paper_id": "P2", "sample_index": 1, "status": "null", "is_scored": True,
     "overall_score": None, "n_calls": 6, "n_calls_missing": 0, "n_error_attempts": 0, "n_calls_unpriced": 0,
     "n_calls_made_by_study": 6, "input_tokens": 6000, "output_tokens": 600, "cost_usd": 0.0336,
     "is_cost_complete": True, "model_seconds": 6.0, "wall_seconds": 4.0},
    {"system_review_cost_id": "S|cfg-llm|P2|0", "study_id": "S", "system_name": "llm-review",
     "system_config": "cfg-llm", "paper_id": "P2", "sample_index": 0, "status": "ok", "is_scored": False,
     "overall_score": None, "n_calls": 1, "n_calls_missing": 0, "n_error_attempts": 0, "n_calls_unpriced": 1,
     "n_calls_made_by_study": 1, "input_tokens": 1000, "output_tokens": 100, "cost_usd": None,
     "is_cost_complete": False, "model_seconds": 20.0, "wall_seconds": 20.0},
]
SUMMARY = [  # tests/dbt/test_system_marts.py's hand-worked S|cfg-ai and S|cfg-llm
    {"system_summary_id": "S|cfg-ai", "study_id": "S", "system_name": "ai-scientist", "system_config": "cfg-ai",
     "is_scored": True, "top_null_reason": "meta: unparseable answer", "score_mean": 7.0, "n_papers": 2,
     "n_reviews": 4, "n_ok_reviews": 3, "n_null_reviews": 1, "n_top_null_reason": 1, "n_reviews_cost_unknown": 0,
     "n_scored_reviews": 2, "n_calls": 22, "n_calls_made_by_study": 16, "calls_per_review_mean": 5.5,
     "error_attempts_per_review_mean": 0.25, "input_tokens_per_review_mean": 5500.0,
     "output_tokens_per_review_mean": 550.0, "cost_total_usd": 0.1232, "cost_per_review_mean_usd": 0.0308,
     "cost_per_paper_mean_usd": 0.0616, "model_seconds_per_review_mean": 20.0, "wall_seconds_per_review_mean": 12.0,
     "score_sd": 1.414, "within_paper_sd": 1.414, "reference_cost_per_review_usd": 0.49},
    {"system_summary_id": "S|cfg-llm", "study_id": "S", "system_name": "llm-review", "system_config": "cfg-llm",
     "is_scored": False, "top_null_reason": None, "score_mean": None, "n_papers": 2, "n_reviews": 2,
     "n_ok_reviews": 2, "n_null_reviews": 0, "n_top_null_reason": 0, "n_reviews_cost_unknown": 1,
     "n_scored_reviews": 0, "n_calls": 2, "n_calls_made_by_study": 2, "calls_per_review_mean": 1.0,
     "error_attempts_per_review_mean": 0.0, "input_tokens_per_review_mean": 1000.0,
     "output_tokens_per_review_mean": 100.0, "cost_total_usd": None, "cost_per_review_mean_usd": None,
     "cost_per_paper_mean_usd": None, "model_seconds_per_review_mean": 25.0, "wall_seconds_per_review_mean": 25.0,
     "score_sd": None, "within_paper_sd": None, "reference_cost_per_review_usd": 0.01},
]
FLOATS = ["overall_score", "cost_usd", "score_mean", "score_sd", "within_paper_sd", "cost_total_usd",
          "cost_per_review_mean_usd", "cost_per_paper_mean_usd"]


def frame(rows: list[dict], **changes) -> pd.DataFrame:
    out = pd.DataFrame(rows)
    for column, values in changes.items():
        out[column] = values
    return out.astype({c: "float64" for c in FLOATS if c in out})


def failed(suite: str, df: pd.DataFrame) -> set[str]:
    return {f.split(": ", 1)[0] for f in validate_frame(suite, df).failures}


def test_valid_rows_pass():
    assert validate_frame("system_review_costs", frame(COSTS)).success
    assert validate_frame("system_summary", frame(SUMMARY)).success


def test_review_costs_each_break_is_named():
    # row 3: an unpriced call, yet 0 and "complete"; row 2: a null review with a score; row 1: 11 on a 1-10
    # scale and a wall time longer than the model time; row 3 also scored though llm-review gives no score
    bad = frame(COSTS, cost_usd=[0.028, 0.0336, 0.0], is_cost_complete=[True, True, True],
                overall_score=[11.0, 5.0, 4.0], wall_seconds=[40.0, 4.0, 20.0], status=["ok", "null", "done"])
    assert failed("system_review_costs", bad) == {
        "expect_column_values_to_be_null(cost_usd, where n_calls_unpriced > 0)",
        "expect_column_values_to_be_in_set(is_cost_complete, value_set=[False], where n_calls_unpriced > 0)",
        "expect_column_values_to_be_null(overall_score, where status == 'null')",
        "expect_column_values_to_be_null(overall_score, where is_scored == False)",
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=model_seconds, column_B=wall_seconds, "
        "or_equal=True, ignore_row_if=either_value_is_missing)",
    }  # 11 on the 1-10 scale and a status neither ok nor null: dbt tests in the mart's yml


def test_summary_each_break_is_named():
    # cfg-ai: 4 reviews but 3 ok + 2 null, a null review without a reason; cfg-llm: a total though a review's
    # cost is unknown, a score mean though it gives no score, a negative cost per paper
    bad = frame(SUMMARY, n_null_reviews=[2, 0], n_top_null_reason=[0, 0], top_null_reason=[None, None],
                cost_total_usd=[0.1232, 0.0056], score_mean=[7.0, 5.0], cost_per_paper_mean_usd=[0.0616, -1.0])
    assert failed("system_summary", bad) == {
        "expect_column_values_to_be_between(n_reviews_unaccounted, min_value=0.0, max_value=0.0)",
        "expect_column_values_to_not_be_null(top_null_reason, where n_null_reviews > 0)",
        "expect_column_values_to_be_null(cost_total_usd, where n_reviews_cost_unknown > 0)",
        "expect_column_values_to_be_null(score_mean, where is_scored == False)",
    }  # the negative cost per paper: a dbt test in the mart's yml


def test_score_suite_takes_a_system_review_without_llm_call_or_confidence():
    # s4 becomes a reviewer system's parsed review (no llm_call, no confidence): fine; s3 a null system review
    ok = scores(llm_call_id=["e1", "e2", None, None], system_review_id=[None, None, "sr3", "sr4"],
                overall_score=[5.0, 6.0, None, 7.0], overall_score_raw=[5.0, 6.0, None, 7.0],
                confidence=[4.0, 1.0, None, None], is_parsed=[True, True, False, True],
                parse_error=[None, None, "system_null:meta: unparseable answer", None])
    assert validate_frame("ai_review_scores", ok).success
    # a template review (no system_review_id) still needs its llm_call and confidence
    own = scores(llm_call_id=["e1", None, "e3", "e4"], confidence=[4.0, None, 5.0, None])
    assert failed("ai_review_scores", own) == {
        "expect_column_values_to_not_be_null(llm_call_id, where source == 'peerlake' and system_review_id is null)",
        "expect_column_values_to_not_be_null(confidence, where is_parsed == True and source == 'peerlake' and "
        "system_review_id is null)",
    }
