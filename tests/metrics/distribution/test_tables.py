import numpy as np
import pandas as pd
import pytest

from peerlake.metrics.distribution.fitting import distribution_table
from peerlake.metrics.distribution.granularity import GRAN_COLUMNS, granularity_table
from peerlake.metrics.distribution.probe import parse_probes


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
    scores = pd.DataFrame(_scores("i", "reviewer_scoring", {"P1": [6, 5, 7]}))
    (row,) = granularity_table(papers, scores, n_boot=100).to_dict("records")
    assert row["n_papers"] == 0 and row["n_decimal_invalid"] == 2 and row["decimal_invalid_rate"] == 1.0
    assert pd.isna(row["mean_shift"])
    assert list(granularity_table(papers.iloc[:0], scores).columns) == list(GRAN_COLUMNS)


def _scores(config, template, by_paper, study="s1", parsed=None):
    """Long score rows; by_paper maps paper -> scores by round (None: an unparsable answer)."""
    return [{"study_id": study, "reviewer_config": config, "prompt_template": template, "provider": "local",
             "model": "m", "paper_id": p, "sample_index": i, "overall_score": s, "is_parsed": s is not None}
            for p, scores in by_paper.items() for i, s in enumerate(scores)]


def test_granularity_uses_exactly_the_first_five_integer_rounds_per_study():
    integer = {"P1": [6, 6, 8, 7, 7, 1, 1], "P2": [4, 5, 4, 5, 4, 10, 10],
               "P3": [None, None, None, None, None, 6, 6]}  # P3: no valid score in rounds 1–5
    decimal = {"P1": [6.5, 7.5], "P2": [4.2, 4.4], "P3": [5.5]}
    scores = pd.DataFrame(_scores("ci", "reviewer_scoring", integer)
                          + _scores("cd", "reviewer_scoring_decimal", decimal)
                          # the same configurations in another study must not leak into s1
                          + _scores("ci", "reviewer_scoring", {"P1": [1, 1, 1, 1, 1]}, study="s2")
                          + _scores("cd", "reviewer_scoring_decimal", {"P1": [9.5]}, study="s2"))
    human = {"P1": 7.0, "P2": 3.0, "P3": 5.0}
    papers = pd.DataFrame([{"study_id": st, "granularity_pair_id": f"{st}|ci|cd", "integer_config": "ci",
                            "decimal_config": "cd", "provider": "local", "model": "m", "paper_id": p,
                            "n_decimal_scores": n_dec, "n_decimal_invalid": 0, "human_score_mean": human[p]}
                           for st, p, n_dec in [("s1", "P1", 2), ("s1", "P2", 2), ("s1", "P3", 1), ("s2", "P1", 1)]])
    table = granularity_table(papers, scores, n_boot=500)
    assert list(table.columns[:2]) == ["study_id", "granularity_pair_id"]
    table = table.set_index("granularity_pair_id")
    row = table.loc["s1|ci|cd"]
    # Rounds 1–5 only: P1 mean 6.8 (not 36/7), P2 mean 4.4; P3 is not comparable.
    assert (row.n_papers, row.n_integer_rounds, row.n_papers_human) == (2, 5, 2)
    assert row.mean_shift == pytest.approx(((7.0 - 6.8) + (4.3 - 4.4)) / 2)
    assert row.mean_shift_ci_low <= row.mean_shift <= row.mean_shift_ci_high
    assert row.within_paper_sd_integer == pytest.approx(np.sqrt((0.7 + 0.3) / 2))  # S² of the first five
    assert row.within_paper_sd_decimal == pytest.approx(np.sqrt((0.5 + 0.02) / 2))
    assert row.mae_integer == pytest.approx((0.2 + 1.4) / 2)
    assert row.mae_decimal == pytest.approx((0.0 + 1.3) / 2)
    other = table.loc["s2|ci|cd"]
    assert other.n_papers == 1 and other.mean_shift == pytest.approx(8.5)
