"""The plain column checks the Great Expectations suites gave to dbt (each mart's `column_checks` test in its
yml, dbt_project/macros/tests/column_checks.sql), run by real dbt on the suites' hand-made frames with one
broken value each: exactly the broken rows fail, each naming the checks it breaks. One dbt invocation for
the module (~25 s). A failed dbt test fails `dbt build`, so it blocks publishing as a failed gate does."""

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import yaml

from tests.expectations import test_quality_suites as quality
from tests.expectations import test_statistic_suites as statistic
from tests.expectations import test_suite_systems as systems
from tests.expectations.test_gates import calls, write_db
from tests.expectations.test_input_suites import human

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
AUDIT = "main_dbt_test__audit"  # where --store-failures writes each failing test's rows


def _histogram() -> pd.DataFrame:
    bad = statistic.HIST.copy()
    bad.loc[0, ["score_bin", "score_histogram_id"]] = [11, "c1|11"]  # a bin off the 1-10 scale
    bad.loc[10, "n_scores"] = -1
    bad.loc[12, "score_histogram_id"] = "c2|2"  # c2's third bin under the second's key: both rows fail
    return bad


# mart -> (its frame with broken values, its key, {key: the checks that row breaks})
CASES = {
    "fct_llm_calls": (
        calls(cached_input_tokens=pd.array([-1, None, None, 0], dtype="Int64"),
              reasoning_tokens=pd.array([50, None, None, -3], dtype="Int64"),
              cost_status=["priced", "mystery", "unknown_model", "free"],
              cost_usd=[0.002, None, -0.5, 0.0]),  # e3: a negative cost, for fct_llm_calls.yml's own `between`
        "llm_call_id", {"e1": "cached_input_tokens < 0", "e2": "cost_status not in accepted values",
                        "e3": "cost_usd < 0", "e4": "reasoning_tokens < 0"}),
    # "1-10" is not NAME:v1,v2,… : the mart gets no bounds; r2's 7 is not on ICLR 2025's gapped scale
    "fct_human_reviews": (
        human(rating_scale=["ICLR2025:1,3,5,6,8,10", "ICLR2025:1,3,5,6,8,10", "1-10"],
              rating_scale_min=[1.0, 1.0, None], rating_scale_max=[10.0, 10.0, None],
              rating=[6.0, 7.0, 0.0], is_rating_on_scale=[True, False, None]),
        "human_review_id", {"r2": "is_rating_on_scale not in accepted values",
                            "r3": "rating_scale_max is null; rating_scale_min is null"}),
    "reliability_score_histogram": (
        _histogram(), "score_histogram_id",
        {"c1|11": "score_bin > 10; score_bin not in accepted values", "c2|1": "n_scores < 0",
         "c2|2": ("score_histogram_id is not unique", "score_histogram_id is not unique")}),
    "reliability_validity": (
        statistic.frame(statistic.VALIDITY, mae=[-1.0, 0.5, None], rmse=[1.5, -0.5, None], n_accepted=[3, 1, None]),
        "validity_id", {"c|all": "mae < 0", "c|venue_year:ICLR / 2017": "rmse < 0", "d|all": "n_accepted is null"}),
    "reliability_repeatability": (
        statistic.frame(statistic.REPEATABILITY, reviews_per_paper_min=[0, None], paper_variance_p10=[-0.4, None]),
        "repeatability_id", {"s|c1": "paper_variance_p10 < 0; reviews_per_paper_min < 1"}),
    "cost_by_model": (
        statistic.costs(output_tokens=[-5, None, None], cached_input_tokens=[40, -1, None]),
        "cost_group_id", {"g1": "output_tokens < 0", "g2": "cached_input_tokens < 0"}),
    "quality_depth": (
        quality.frame(quality.DEPTH, doa=[1.2, 0.0, None, None], premise_ratio=[0.5, 1.5, None, None]),
        "quality_depth_id", {"s|c|human:a": "doa > 1", "s|c|human:b": "premise_ratio > 1"}),
    "quality_constructiveness": (
        quality.frame(quality.CONSTRUCTIVE, mcs_sd=[-0.1, None], n_repeats_scored=[1, -1]),
        "quality_constructiveness_id", {"s|c|human:a": "mcs_sd < 0", "s|c|human:b": "n_repeats_scored < 0"}),
    "quality_judge_repeatability": (
        quality.frame(quality.REPEATABILITY, score_mean=[0.35, 1.5]),
        "judge_repeatability_id", {"s|d|mcs": "score_mean > 1"}),
    "system_review_costs": (
        systems.frame(systems.COSTS, overall_score=[11.0, None, None], wall_seconds=[20.0, 4.0, -1.0]),
        "system_review_cost_id", {"S|cfg-ai|P1|0": "overall_score > 10", "S|cfg-llm|P2|0": "wall_seconds < 0"}),
    "system_summary": (
        systems.frame(systems.SUMMARY, cost_per_paper_mean_usd=[-1.0, None]),
        "system_summary_id", {"S|cfg-ai": "cost_per_paper_mean_usd < 0"}),
}


def _stated_checks(mart: str) -> dict:
    """The arguments of the mart's column_checks test, as its yml states them."""
    for path in (PROJECT_DIR / "models").rglob("*.yml"):
        for model in yaml.safe_load(path.read_text()).get("models", []):
            if model["name"] == mart:
                return next(t["column_checks"]["arguments"] for t in model.get("data_tests", [])
                            if isinstance(t, dict) and "column_checks" in t)
    raise LookupError(mart)


def _completed(mart: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The case's frame with every checked column it lacks filled with a value that passes (the suites'
    frames hold the columns their suites checked; the mart's yml checks more): only the broken values fail."""
    args, frame = _stated_checks(mart), frame.copy()
    passing = {**dict.fromkeys([*args.get("unique", []), *args.get("not_null", [])], "x"),
               **{c: b.get("min_value", b.get("max_value")) for c, b in args.get("between", {}).items()},
               **{c: values[0] for c, values in args.get("accepted_values", {}).items()}}
    for column, value in passing.items():
        if column not in frame:
            frame[column] = range(len(frame)) if column in args.get("unique", []) else value
    return frame


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The DuckDB file after `dbt test --store-failures` of every case's column_checks; each test's status."""
    work = tmp_path_factory.mktemp("column_checks")
    db = write_db(work / "marts.duckdb", **{mart: _completed(mart, frame) for mart, (frame, _, _) in CASES.items()})
    env = {**os.environ, "PEERLAKE_HOME": str(work / "lake"), "PEERLAKE_DUCKDB_PATH": str(db)}
    selectors = [f"test_name:column_checks,{mart}" for mart in CASES]
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "test", "--store-failures", "--select", *selectors,
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[-4000:]  # dbt exits 1 when a test fails: the build stops there
    results = json.loads((work / "target" / "run_results.json").read_text())["results"]
    return db, {r["unique_id"].split(".")[2]: r["status"] for r in results}


@pytest.mark.parametrize("mart", sorted(CASES))
def test_exactly_the_broken_rows_fail_naming_their_checks(checked, mart):
    db, status = checked
    assert status[f"{mart}_column_checks"] == "fail"
    _, key, expected = CASES[mart]
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(f'select "{key}", failed_checks from {AUDIT}.{mart}_column_checks').fetchall()
    found: dict[str, list[str]] = {}
    for k, checks in rows:  # a duplicated key is two failing rows
        found.setdefault(k, []).append("; ".join(sorted(checks.split("; "))))
    assert {k: sorted(v) for k, v in found.items()} == {
        k: sorted(v) if isinstance(v, tuple) else [v] for k, v in expected.items()}


def test_one_node_per_mart_and_nothing_else_ran(checked):
    # A negative cost was a GX range, then a per-column dbt `between`: now one check of fct_llm_calls' one node.
    _, status = checked
    assert status == {f"{mart}_column_checks": "fail" for mart in CASES}


def test_a_failed_column_check_publishes_nothing_and_the_cli_names_it(tmp_path):
    """Through `peerlake build` (real Dagster and dbt): a human review of a paper the lake does not know fails
    fct_human_reviews_column_checks in the first dbt stage; the CLI names the test and its mart, and no mart
    is published, as for a failed Great Expectations gate (tests/orchestration/test_pipeline.py); it also names
    the failing row by its key and the check it breaks."""
    from datetime import UTC, datetime

    from peerlake.warehouse import EventLog, HumanReviewImported, Lake

    root = tmp_path / "lake"
    log = EventLog(Lake(root))
    log.append_many([HumanReviewImported(
        occurred_at=datetime(2026, 1, 1, tzinfo=UTC), paper_id="P-unknown", review_id="H1", source="openreview",
        venue="TEST 2026", rating=5.0, rating_scale="TEST:1,2,3,4,5,6,7,8,9,10", confidence=3.0, body_sha256="e" * 64)])
    log.seal()
    log.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    proc = subprocess.run([str(Path(sys.executable).with_name("peerlake")), "build"],
                          env={**env, "PEERLAKE_HOME": str(root)}, capture_output=True, text=True, timeout=900,
                          cwd=PROJECT_DIR.parent)
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 1, out
    assert "GATE FAILED fct_human_reviews_column_checks on fct_human_reviews (dbt test)" in out
    # and the row that broke it, read from the candidate once dbt let go of it: its key and its check
    assert ("dbt test fct_human_reviews_column_checks on fct_human_reviews: 1 failing row"
            " - human_review_id 'H1': has_known_paper not in accepted values") in out
    assert "Nothing was published" in out and not (root / "peerlake.duckdb").exists()
