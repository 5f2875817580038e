"""int_ai_reviews_parsed built incrementally (new events after a first build) equals the same table
built from every event, and a table written by other code is rebuilt whole. Real dbt, real DuckDB."""

import json
import os
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import duckdb

from peerlake.warehouse import EventLog, Lake
from tests.dbt.sample_lake import T0, _call, _request, review_json

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
MODEL = "int_ai_reviews_parsed"
CFG = {"provider": "local", "model": "qwen-1.5b", "template": "review_v1", "hash": "h-r"}


def dbt_run(lake: Path, work: Path, db: Path, *extra: str) -> str:
    """`dbt run` of the model and the staging view it reads; returns the model's compiled select."""
    env = {**os.environ, "PEERLAKE_HOME": str(lake), "PEERLAKE_DUCKDB_PATH": str(db)}
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "run", "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR), "--target-path", str(work / "target"), "--log-path",
         str(work / "logs"), "--select", "stg_events__llm_calls", MODEL, *extra],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt run failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return next((work / "target" / "compiled").rglob(f"{MODEL}.sql")).read_text()


def append(lake: Path, papers: range, start: int, texts) -> None:
    log = EventLog(Lake(lake))
    at = T0 + timedelta(minutes=start)
    events = []
    for paper in papers:
        for sample, text in enumerate(texts):
            at += timedelta(seconds=1)
            events.append(_call(_request(CFG, f"P{paper}", sample), at, text=text))
        # a failed attempt of an answered request: an event the table never holds
        events.append(_call(_request(CFG, f"P{paper}", 0), at, text=None, status="error", attempt=2))
    log.append_many(events)
    log.seal()
    log.close()


def rows_only_in(a: Path, b: Path) -> tuple[int, int, int]:
    with duckdb.connect() as con:
        con.execute(f"attach '{a}' as a (read_only)")
        con.execute(f"attach '{b}' as b (read_only)")
        only_a = con.execute(f"select count(*) from (from a.{MODEL} except all from b.{MODEL})").fetchone()[0]
        only_b = con.execute(f"select count(*) from (from b.{MODEL} except all from a.{MODEL})").fetchone()[0]
        return only_a, only_b, con.execute(f"select count(*) from a.{MODEL}").fetchone()[0]


def test_incremental_rows_equal_a_full_build_and_other_code_rebuilds(tmp_path):
    lake, db = tmp_path / "lake", tmp_path / "marts.duckdb"
    texts = [review_json(6), "no JSON here", "```json\n" + review_json(4) + "\n```", review_json(11)]
    append(lake, range(3), 0, texts)
    first = dbt_run(lake, tmp_path, db)
    assert "changed_keys" not in first  # nothing to keep yet: every event

    append(lake, range(3, 5), 60, texts)  # new requests after the first build
    incremental = dbt_run(lake, tmp_path, db)
    assert "changed_keys" in incremental  # only the keys with unseen events were parsed
    shutil.copyfile(db, tmp_path / "incremental.duckdb")

    dbt_run(lake, tmp_path, db, "--full-refresh")
    assert rows_only_in(tmp_path / "incremental.duckdb", db) == (0, 0, 5 * len(texts))

    # a table whose comment names other code (an older parser) is re-parsed from every event
    with duckdb.connect(str(db)) as con:
        con.execute(f"comment on table {MODEL} is 'another version'")
        con.execute(f"update {MODEL} set parse_error = 'stale'")
    rebuilt = dbt_run(lake, tmp_path, db)
    assert "changed_keys" not in rebuilt
    assert rows_only_in(tmp_path / "incremental.duckdb", db) == (0, 0, 5 * len(texts))
    with duckdb.connect(str(db), read_only=True) as con:
        version = con.execute("select comment from duckdb_tables() where table_name = ?", [MODEL]).fetchone()[0]
    assert len(version) == 32 and json.dumps(version)  # an MD5, written back after the build
