"""The incremental SQL models equal a build from nothing (EXCEPT ALL both ways) after appends (new
reviews, a study drawn again larger then smaller, a new price table), after a change of code (a table
whose comment names other code; an edited upstream model) and after a dbt killed in the middle of
one model's delete. Real dbt over real sealed events, real DuckDB; `--select` keeps each run small."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import PriceTableRecorded
from tests.dbt.sample_lake import CONFIG_A, CONFIG_B, T0, _call, _request, build_sample_lake, review_json

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
MODELS = ("int_ai_reviews_parsed", "int_call_costs", "fct_llm_calls", "int_cost_facts", "int_review_items")
SELECT = ("+int_review_items", "+fct_llm_calls", "+int_cost_facts")
KEPT = " as seen)"  # only the compiled SQL of a build that keeps the rows reads `{{ this }} as seen`


def _command(project: Path, work: Path, *extra: str) -> list[str]:
    return [str(Path(sys.executable).with_name("dbt")), "run", "--project-dir", str(project),
            "--profiles-dir", str(project), "--target-path", str(work / "target"),
            "--log-path", str(work / "logs"), "--select", *SELECT, *extra]


def _env(lake: Path, db: Path) -> dict:
    return {**os.environ, "PEERLAKE_HOME": str(lake), "PEERLAKE_DUCKDB_PATH": str(db)}


def dbt_run(lake: Path, work: Path, db: Path, *extra: str, project: Path = PROJECT_DIR) -> dict[str, str]:
    """`dbt run` of the incremental models and what they read; returns each model's compiled select."""
    shutil.rmtree(work / "target", ignore_errors=True)
    proc = subprocess.run(_command(project, work, *extra), env=_env(lake, db), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"dbt run failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return {m: next((work / "target" / "compiled").rglob(f"{m}.sql")).read_text() for m in MODELS}


def dbt_run_killed(lake: Path, work: Path, db: Path, model: str) -> None:
    """`dbt run`, killed with SIGKILL as soon as dbt logs a delete from `model` (before it runs)."""
    log = work / "logs" / "dbt.log"
    log.unlink(missing_ok=True)
    pattern = re.compile(rf'delete from\s+\S*"{model}"')
    # The statements are in dbt's log file at debug only; an earlier test in this process may have set
    # DBT_LOG_LEVEL_FILE=info (settings.export_lake_env does), and then no delete is ever seen.
    proc = subprocess.Popen(_command(PROJECT_DIR, work), env={**_env(lake, db), "DBT_LOG_LEVEL_FILE": "debug"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, deadline = "", time.monotonic() + 240
    while proc.poll() is None and time.monotonic() < deadline:
        if log.exists():
            seen = log.read_text(errors="replace")
            if pattern.search(seen):
                proc.send_signal(signal.SIGKILL)
                break
        time.sleep(0.002)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"dbt was not killed at {model}'s delete:\n{seen[-3000:]}"


def differences(a: Path, b: Path, model: str) -> tuple[int, int, int]:
    """(rows only in a, rows only in b, rows in a) of one table in two database files."""
    with duckdb.connect() as con:
        con.execute(f"attach '{a}' as a (read_only)")
        con.execute(f"attach '{b}' as b (read_only)")
        only_a = con.execute(f"select count(*) from (from a.{model} except all from b.{model})").fetchone()[0]
        only_b = con.execute(f"select count(*) from (from b.{model} except all from a.{model})").fetchone()[0]
        return only_a, only_b, con.execute(f"select count(*) from a.{model}").fetchone()[0]


def assert_equals_a_build_from_nothing(lake: Path, work: Path, db: Path) -> None:
    fresh = work / f"fresh-{time.monotonic_ns()}.duckdb"
    compiled = dbt_run(lake, work / "fresh", fresh)
    assert not any(KEPT in sql for sql in compiled.values())  # a first build keeps nothing
    for model in MODELS:
        only_kept, only_fresh, n = differences(db, fresh, model)
        assert (only_kept, only_fresh) == (0, 0), f"{model}: {only_kept} rows only kept, {only_fresh} only fresh"
        assert n > 0, model


def append(lake: Path, events) -> None:
    log = EventLog(Lake(lake))
    log.append_many(list(events))
    log.seal()
    log.close()


def reviews(papers, day: int) -> list:
    """Two samples per configuration per paper, with items (one empty) and a failed first attempt."""
    at, out = T0 + timedelta(days=day), []
    for paper in papers:
        for cfg in (CONFIG_A, CONFIG_B):
            for sample in range(2):
                at += timedelta(seconds=1)
                out.append(_call(_request(cfg, paper, sample), at, text=None, status="error"))
                out.append(_call(_request(cfg, paper, sample), at + timedelta(milliseconds=1), attempt=2,
                                 text=review_json(4 + sample, strengths=[f"{paper} is clear", " "],
                                                  concerns=[f"{paper}: n={sample}"])))
    return out


def study(lake: Path, papers, day: int):
    """The study "test" drawn again over `papers`, every review configuration in the log."""
    log = EventLog(Lake(lake))
    configs = {e.reviewer_config for e in log.iter_events("llm_call") if e.purpose == "review"}
    log.close()
    # recorded now, so newer than the sample lake's own resolution (int_studies_latest takes the newest)
    return resolution_event("test", f"{day:064d}", papers, [{"reviewer_config": c, "samples": 3}
                                                            for c in sorted(configs)], ("*",), paper_source="test")


def price_table(day: int, input_usd: float) -> PriceTableRecorded:
    rows = [{"provider": p, "model": m, "effective_from": "2026-01-01", "input": input_usd, "cached_input": 0.1,
             "cache_write": 1.0, "output": 4 * input_usd} for p, m in (("openai", "gpt-4.1-mini"),
                                                                        ("local", "qwen-1.5b"))]
    return PriceTableRecorded(occurred_at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=day),
                              version=f"t-{day}", source_sha256="0" * 64, prices_json=json.dumps(rows))


@pytest.fixture
def lake(tmp_path) -> Path:
    build_sample_lake(tmp_path / "lake")  # papers P1-P3 reviewed under two configurations, study "test"
    append(tmp_path / "lake", [price_table(0, 2.0)])
    return tmp_path / "lake"


def test_appends_keep_the_rows_a_build_from_nothing_makes(lake, tmp_path):
    db = tmp_path / "marts.duckdb"
    dbt_run(lake, tmp_path, db)

    # new reviews of new papers, and the study drawn again over them: every model keeps its rows
    append(lake, reviews(["P4", "P5"], day=1))
    append(lake, [study(lake, ["P1", "P2", "P3", "P4", "P5"], day=1)])
    compiled = dbt_run(lake, tmp_path, db)
    assert all(KEPT in compiled[m] for m in MODELS), [m for m in MODELS if KEPT not in compiled[m]]
    assert_equals_a_build_from_nothing(lake, tmp_path, db)


def test_a_new_price_table_and_a_smaller_study(lake, tmp_path):
    db = tmp_path / "marts.duckdb"
    dbt_run(lake, tmp_path, db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from int_review_items where paper_id in ('P2', 'P3')").fetchone()[0] > 0
    # a new price table re-prices every call (and fct_llm_calls, int_cost_facts: they read those prices);
    # the study drawn smaller drops the items of P2 and P3's reviews; a second answer to P1's requests
    append(lake, [price_table(1, 3.0), study(lake, ["P1"], day=2), *reviews(["P1"], day=2)])
    compiled = dbt_run(lake, tmp_path, db)
    assert [m for m in MODELS if KEPT in compiled[m]] == ["int_ai_reviews_parsed", "int_review_items"]
    assert_equals_a_build_from_nothing(lake, tmp_path, db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from int_review_items where paper_id in ('P2', 'P3')").fetchone() == (0,)


def test_a_table_written_by_other_code_is_rebuilt_whole(lake, tmp_path):
    db = tmp_path / "marts.duckdb"
    dbt_run(lake, tmp_path, db)
    with duckdb.connect(str(db)) as con:  # rows an older version wrote, with a key the new code never makes
        for model in MODELS:
            con.execute(f"comment on table {model} is 'another version'")
            con.execute(f"insert into {model} select * from {model} limit 1")
            key = {"int_ai_reviews_parsed": "request_key", "int_review_items": "study_review_id",
                   "int_cost_facts": "fact_id"}.get(model, "llm_call_id")
            con.execute(f"update {model} set {key} = 'gone' where rowid = (select max(rowid) from {model})")
    compiled = dbt_run(lake, tmp_path, db)
    assert not any(KEPT in sql for sql in compiled.values())
    assert_equals_a_build_from_nothing(lake, tmp_path, db)


def test_an_edited_upstream_model_rebuilds_what_reads_it_and_only_that(lake, tmp_path):
    db = tmp_path / "marts.duckdb"
    dbt_run(lake, tmp_path, db)
    project = tmp_path / "project"
    shutil.copytree(PROJECT_DIR, project, ignore=shutil.ignore_patterns("target", "logs"))
    parsed = project / "models" / "intermediate" / "int_ai_reviews_parsed.sql"
    parsed.write_text("-- an edit\n" + parsed.read_text())
    compiled = dbt_run(lake, tmp_path, db, project=project)
    assert [m for m in MODELS if KEPT in compiled[m]] == ["int_call_costs", "fct_llm_calls", "int_cost_facts"]
    assert_equals_a_build_from_nothing(lake, tmp_path, db)


@pytest.mark.parametrize("model", ["int_call_costs", "fct_llm_calls", "int_cost_facts", "int_review_items"])
def test_a_build_killed_in_a_delete_is_finished_by_the_next(lake, tmp_path, model):
    db = tmp_path / "marts.duckdb"
    dbt_run(lake, tmp_path, db)
    append(lake, reviews(["P4"], day=1))
    append(lake, [study(lake, ["P1", "P4"], day=1)])  # int_review_items deletes P2 and P3's items
    dbt_run_killed(lake, tmp_path, db, model)
    dbt_run(lake, tmp_path, db)
    assert_equals_a_build_from_nothing(lake, tmp_path, db)
