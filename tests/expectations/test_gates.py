"""Gates against small hand-made mart tables in a real DuckDB file (no dbt needed)."""

import ast
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from peerlake.expectations import GATES, run_gate, validate_frame


def scores(**changes) -> pd.DataFrame:
    """A valid fct_ai_review_scores: three parsed reviews and one flagged one."""
    frame = pd.DataFrame({
        "review_score_id": ["s1", "s2", "s3", "s4"],
        "paper_id": ["P1", "P1", "P2", "P2"],
        "reviewer_config": ["cfg"] * 4,
        "sample_index": [0, 1, 0, 1],
        "overall_score": [5.0, 6.0, 10.0, None],
        "overall_score_raw": [5.0, 6.0, 10.0, None],
        "confidence": [4.0, 1.0, 5.0, None],
        "is_parsed": [True, True, True, False],
        "parse_error": [None, None, None, "invalid_json"],
        "llm_call_id": ["e1", "e2", "e3", "e4"],
        "source": ["peerlake"] * 4,
        "system_review_id": [None] * 4,  # none is a reviewer system's review (tests/expectations/test_suite_systems.py)
    })
    for column, values in changes.items():
        frame[column] = values
    return frame


def calls(**changes) -> pd.DataFrame:
    """A valid fct_llm_calls: ok calls (one unpriced), a failed attempt, a non-review call."""
    frame = pd.DataFrame({
        "llm_call_id": ["e1", "e2", "e3", "e4"],
        "purpose": ["review", "review", "review", "extract_claims"],
        "status": ["ok", "error", "ok", "ok"],
        "provider": ["openai", "openai", "local", "local"],
        "model": ["gpt-4.1-mini", "gpt-4.1-mini", "qwen", "qwen"],
        "prompt_hash": ["h1", "h1", "h2", None],
        "input_tokens": pd.array([1000, None, 900, 50], dtype="Int64"),
        "cached_input_tokens": pd.array([400, None, None, 0], dtype="Int64"),
        "cache_write_tokens": pd.array([None, None, None, 0], dtype="Int64"),
        "output_tokens": pd.array([200, None, 180, 10], dtype="Int64"),
        "reasoning_tokens": pd.array([50, None, None, 0], dtype="Int64"),
        "cost_usd": [0.002, None, None, 0.0],
        "cost_status": ["priced", "no_usage", "unknown_model", "free"],
        "latency_ms": [812.0, 30.5, 2400.0, 90.0],
    })
    for column, values in changes.items():
        frame[column] = values
    return frame


def write_db(path, **tables: pd.DataFrame):
    with duckdb.connect(str(path)) as con:
        for name, frame in tables.items():
            con.register("frame", frame)
            con.execute(f"create table {name} as select * from frame")
            con.unregister("frame")
    return path


@pytest.fixture
def good_db(tmp_path):
    return write_db(tmp_path / "good.duckdb", fct_ai_review_scores=scores(), fct_llm_calls=calls())


# The suites this module's hand-made tables exercise; reliability suites are tested beside their
# marts in tests/dbt/test_reliability_marts.py.
FACT_GATES = {"ai_review_scores": "fct_ai_review_scores", "llm_calls": "fct_llm_calls"}


def test_gates_map_suites_to_dbt_models():
    assert FACT_GATES.items() <= GATES.items()
    assert {"rank_reproducibility": "reliability_rank_reproducibility",
            "close_pairs": "reliability_close_pairs",
            "budgets": "reliability_budgets"}.items() <= GATES.items()


def test_every_gate_passes_on_valid_marts(good_db):
    for suite in FACT_GATES:
        result = run_gate(suite, good_db)
        assert result.success, result.describe()
        assert result.failures == []
        assert result.statistics["rows"] == 4
        assert result.statistics["evaluated_expectations"] == result.statistics["successful_expectations"] > 3
        assert result.describe().startswith(f"gate {suite} on {GATES[suite]}: PASS")


def test_out_of_range_parsed_score_fails_naming_expectation_column_value_and_row(tmp_path):
    db = write_db(tmp_path / "bad.duckdb", fct_ai_review_scores=scores(overall_score=[5.0, 42.0, 10.0, None]))
    result = run_gate("ai_review_scores", db)
    assert not result.success
    [failure] = result.failures
    assert failure.startswith("expect_column_values_to_be_between(overall_score")
    assert "where is_parsed == True" in failure and "1 of 3 rows" in failure
    assert "[42.0]" in failure and "'s2'" in failure
    assert result.statistics["unsuccessful_expectations"] == 1
    assert "FAIL" in result.describe() and failure in result.describe()


def test_out_of_range_values_on_unparsed_rows_are_not_checked():
    frame = scores(overall_score=[5.0, 6.0, 10.0, 42.0], confidence=[4.0, 1.0, 5.0, 9.0])
    assert validate_frame("ai_review_scores", frame).success


def test_a_parsed_confidence_out_of_range_fails():
    # (a duplicate or missing key: the dbt tests unique / not_null in fct_ai_review_scores.yml)
    result = validate_frame("ai_review_scores", scores(confidence=[4.0, 0.0, 5.0, None]))
    failed = sorted(f.split(":")[0] for f in result.failures)
    assert failed == [
        "expect_column_values_to_be_between(confidence, min_value=1.0, max_value=5.0, "
        "where is_parsed == True)",
    ]


def test_parsed_review_without_score_and_unparsed_without_reason_fail():
    frame = scores(overall_score=[5.0, None, 10.0, None], parse_error=[None, None, None, None])
    failed = {f.split(":")[0] for f in validate_frame("ai_review_scores", frame).failures}
    assert failed == {"expect_column_values_to_not_be_null(overall_score, where is_parsed == True)",
                      "expect_column_values_to_not_be_null(parse_error, where is_parsed == False)"}


def test_llm_calls_gate_flags_missing_usage_unknown_cost_and_unattributed_review(tmp_path):
    # (a negative cost: the dbt test between in fct_llm_calls.yml)
    db = write_db(tmp_path / "bad.duckdb", fct_llm_calls=calls(
        output_tokens=pd.array([200, None, None, 10], dtype="Int64"),  # e3 is ok but has none
        cost_usd=[0.002, None, None, 0.0], cost_status=["priced", "no_usage", "priced", "free"],  # e3: priced, no cost
        prompt_hash=[None, "h1", "h2", None]))  # e1 is a review without its prompt hash
    result = run_gate("llm_calls", db)
    assert not result.success
    by_expectation = {f.split(": ")[0]: f for f in result.failures}
    unknown = ("expect_column_values_to_be_in_set(cost_status, value_set=['unknown_model', 'no_usage', 'bad_usage'], "
               "where cost_usd is null)")
    assert set(by_expectation) == {
        "expect_column_values_to_not_be_null(output_tokens, where status == 'ok')",
        unknown,
        "expect_column_values_to_not_be_null(prompt_hash, where purpose == 'review')",
    }
    assert "['e3']" in by_expectation[unknown]
    assert "['e1']" in by_expectation[
        "expect_column_values_to_not_be_null(prompt_hash, where purpose == 'review')"]


def test_missing_table_or_columns_fail_the_gate_with_a_reason(tmp_path):
    db = write_db(tmp_path / "partial.duckdb",
                  fct_llm_calls=calls().drop(columns=["cost_usd", "latency_ms"]))
    missing_table = run_gate("ai_review_scores", db)
    assert not missing_table.success
    [reason] = missing_table.failures
    assert "fct_ai_review_scores" in reason and "table not found" in reason
    missing_cols = run_gate("llm_calls", db)
    assert not missing_cols.success
    assert "columns missing: cost_usd, latency_ms" in missing_cols.failures[0]


def test_unknown_suite_and_missing_file_raise_clear_errors(tmp_path, good_db):
    with pytest.raises(ValueError, match=r"unknown gate suite 'nope'.*ai_review_scores"):
        run_gate("nope", good_db)
    with pytest.raises(FileNotFoundError, match=r"absent\.duckdb does not exist"):
        run_gate("llm_calls", tmp_path / "absent.duckdb")


def test_importing_the_gates_does_not_import_great_expectations():
    # great_expectations costs seconds to import; CLI start-up and Dagster loading must not pay it.
    code = "import sys, expectations; print('great_expectations' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"


def test_a_writer_holding_the_file_gives_a_clear_error_not_a_hang(good_db):
    # DuckDB allows one writer process; while dbt (here: a stand-in) holds the file, a gate cannot
    # open it and must say which file and why.
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(60)", str(good_db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(RuntimeError, match=r"gate llm_calls: cannot open .*good.duckdb read-only"):
            run_gate("llm_calls", good_db)
    finally:
        holder.kill()
        holder.wait()


def test_reviews_off_the_protocol_scale_fail_the_gate_beyond_five_percent():
    # What the mart does with an answer of 42: out of the metrics (overall_score null, not parsed),
    # but still visible in overall_score_raw, which the gate watches.
    bad = scores(overall_score=[5.0, 6.0, None, None], overall_score_raw=[5.0, 6.0, 42.0, None],
                 is_parsed=[True, True, False, False],
                 parse_error=[None, None, "overall_score_out_of_range", "invalid_json"])
    result = validate_frame("ai_review_scores", bad)
    assert not result.success
    assert any(f.startswith("expect_column_values_to_be_between(overall_score_raw") and "42" in f
               for f in result.failures)


def test_external_reviews_need_no_llm_call_or_confidence_but_peerlake_rows_do():
    frame = scores(source=["peerlake", "external", "external", "peerlake"],
                   llm_call_id=["e1", None, None, "e4"], confidence=[4.0, None, 5.0, None])
    assert validate_frame("ai_review_scores", frame).success
    frame = scores(llm_call_id=["e1", None, "e3", "e4"], confidence=[4.0, None, 5.0, None])
    failed = {f.split(":")[0] for f in validate_frame("ai_review_scores", frame).failures}
    # a template review's row: no reviewer system's review (system_review_id null; see test_suite_systems.py)
    assert failed == {"expect_column_values_to_not_be_null(llm_call_id, where source == 'peerlake' and "
                      "system_review_id is null)",
                      "expect_column_values_to_not_be_null(confidence, where is_parsed == True and "
                      "source == 'peerlake' and system_review_id is null)"}


def test_a_failure_names_the_suite_the_expectation_and_at_most_five_offending_keys():
    ids = [f"e{i}" for i in range(1, 9)]
    eight = pd.concat([calls()] * 2, ignore_index=True).assign(llm_call_id=ids, purpose="review", prompt_hash=None)
    result = validate_frame("llm_calls", eight)
    [failure] = result.failures
    assert failure.startswith("expect_column_values_to_not_be_null(prompt_hash, where purpose == 'review'): "
                              "8 of 8 rows")
    listed = failure.split("; llm_call_id ")[1]
    assert sorted(ast.literal_eval(listed)) == ids[:5]  # the first five, not all eight
    assert result.describe().splitlines() == ["gate llm_calls on fct_llm_calls: FAIL "
                                              f"({result.statistics['successful_expectations']}/"
                                              f"{result.statistics['evaluated_expectations']} expectations met,"
                                              " 8 rows)", f"  - {failure}"]


def test_a_column_pairs_offending_values_print_as_plain_numbers():
    frame = pd.DataFrame({"study_cost_id": ["k1"], "study_id": ["s"], "provider": ["p"], "model": ["m"],
                          "n_attempts": [1], "n_paid_calls": [1], "n_failed_attempts": [0], "input_tokens": [1],
                          "output_tokens": [1], "cost_usd": [0.5], "n_paid_calls_cost_unknown": [0],
                          "n_review_calls_used": [1], "n_review_calls_replayed": [2],
                          "replayed_cost_usd_saved": [None]})
    [failure] = validate_frame("cost_by_study", frame).failures
    assert "values [(1, 2)]; study_cost_id ['k1']" in failure


def test_run_gate_validates_a_candidate_schema_not_the_published_one(tmp_path):
    # Write-audit-publish: the candidate build sits beside the published marts until its gates pass.
    db = write_db(tmp_path / "lake.duckdb", fct_llm_calls=calls())
    with duckdb.connect(str(db)) as con:
        con.execute("create schema candidate")
        # e1 answered ok without its output tokens
        con.register("frame", calls(output_tokens=pd.array([None, None, 180, 10], dtype="Int64")))
        con.execute("create table candidate.fct_llm_calls as select * from frame")
    assert run_gate("llm_calls", db).success
    candidate = run_gate("llm_calls", db, schema="candidate")
    assert not candidate.success
    assert candidate.failures[0].startswith("expect_column_values_to_not_be_null(output_tokens")
    assert "['e1']" in candidate.failures[0]
    [missing] = run_gate("ai_review_scores", db, schema="candidate").failures
    assert "candidate.fct_ai_review_scores" in missing and "table not found" in missing
