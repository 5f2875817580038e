"""dbt's partial parse survives a change of lake: the profile and the parsed project name no lake (the
lake's file and segments are read when dbt connects and compiles), so another lake re-parses nothing."""

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"


def dbt_parse(home: Path, target: Path, logs: Path, **extra_env: str) -> str:
    # Not the worker's DBT_* either: a pipeline test earlier in the same process exports
    # DBT_LOG_LEVEL_FILE=info (warehouse.settings), which hides the debug lines read below.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PEERLAKE_", "DBT_"))}
    env.update(extra_env, DBT_LOG_LEVEL_FILE="debug", PEERLAKE_HOME=str(home),
               PEERLAKE_DUCKDB_PATH=str(home / "candidate" / "peerlake.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "parse", "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR), "--target-path", str(target), "--log-path", str(logs)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return (logs / "dbt.log").read_text()


def test_another_lake_reuses_the_first_lakes_parse(tmp_path):
    first = dbt_parse(tmp_path / "a", tmp_path / "target", tmp_path / "logs-a")
    assert "Starting full parse" in first
    # the same target/ (what dagster-dbt seeds every invocation from): a local lake, then a remote one
    for lake, extra in (("b", {}), ("c", {"PEERLAKE_SEGMENTS_URL": "s3://bucket/c/events/segments"})):
        log = dbt_parse(tmp_path / lake, tmp_path / "target", tmp_path / f"logs-{lake}", **extra)
        assert "Unable to do partial parsing" not in log
        assert "Nothing changed, skipping partial parsing" in log
