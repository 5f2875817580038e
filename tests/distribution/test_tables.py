import pandas as pd
import pytest

from metrics.distribution.tables import GRAN_COLUMNS, distribution_table, granularity_table, parse_probes


def call(i, purpose="score_probe", lp="sha", text='{"overall_score": 7}'):
    return {"llm_call_id": f"e{i}", "request_key": f"r{i}", "purpose": purpose, "is_ok": True,
            "occurred_at": pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(seconds=i), "subject_id": f"P{i}",
            "reviewer_config": "pc", "provider": "local", "model": "m", "prompt_hash": "h", "sample_index": 0,
            "params_json": "{}", "response_text": text, "logprobs_sha256": lp}


def test_unreadable_probes_are_kept_with_a_named_error():
    def read(sha):
        if sha == "gone":
            raise FileNotFoundError(f"blob {sha} missing")
        return '[{"token": "}", "logprob": 0, "top": []}]'
    frame = pd.DataFrame([call(1, lp=None), call(2, lp="gone"), call(3, lp="nodigit"),
                          call(4, purpose="review")])
    out = parse_probes(frame, read).set_index("paper_id")
    assert list(out.index) == ["P1", "P2", "P3"]  # the review call is not a probe
    assert not out["is_parsed"].any()
    assert "no logprobs recorded" in out.loc["P1", "parse_error"]
    assert "missing" in out.loc["P2", "parse_error"]
    assert "no output token holds a digit" in out.loc["P3", "parse_error"]
    assert out.loc["P1", "answer_score"] == 7


def test_empty_inputs_give_typed_empty_marts():
    probes = parse_probes(pd.DataFrame([call(1, purpose="review")]), lambda s: "")
    assert probes.empty and "prob_10" in probes
    dist = distribution_table(probes, pd.DataFrame(columns=["prompt_template", "is_parsed", "provider", "model",
                                                            "reviewer_config", "paper_id", "sample_index",
                                                            "overall_score"]),
                              pd.DataFrame({"paper_id": [], "is_accepted": []}))
    assert dist.empty and dist["risk"].dtype == "float64"


def test_a_pair_without_comparable_papers_still_counts_invalid_answers():
    papers = pd.DataFrame([{"granularity_pair_id": "i|d", "integer_config": "i", "decimal_config": "d",
                            "provider": "local", "model": "m", "paper_id": "P1", "n_integer_scores": 3,
                            "n_decimal_scores": 0, "n_decimal_invalid": 2, "integer_mean": 6.0,
                            "decimal_mean": None, "integer_variance": 1.0, "decimal_variance": None,
                            "human_score_mean": 5.0, "is_comparable": False}])
    (row,) = granularity_table(papers, n_boot=100).to_dict("records")
    assert row["n_papers"] == 0 and row["n_decimal_invalid"] == 2 and row["decimal_invalid_rate"] == 1.0
    assert pd.isna(row["mean_shift"])
    assert list(granularity_table(papers.iloc[:0]).columns) == list(GRAN_COLUMNS)
