"""The linters configured in pyproject.toml (ruff) and .sqlfluff (sqlfluff, dbt templater) are clean,
so `make test` fails on a new violation with the linter's own report."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_is_clean():
    proc = subprocess.run([str(BIN / "ruff"), "check", "--output-format", "concise", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"ruff check .:\n{proc.stdout[-12000:]}\n{proc.stderr[-2000:]}"


def test_sqlfluff_is_clean_on_the_dbt_models(tmp_path):
    # The dbt templater compiles every model and opens the profile's database: point both, and dbt's
    # target/ and logs/, at a scratch folder so linting never locks or touches a real lake.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PEERLAKE_", "DBT_"))}
    env.update(PEERLAKE_HOME=str(tmp_path / "lake"), PEERLAKE_DUCKDB_PATH=str(tmp_path / "lint.duckdb"),
               DBT_TARGET_PATH=str(tmp_path / "target"), DBT_LOG_PATH=str(tmp_path / "logs"))
    proc = subprocess.run([str(BIN / "sqlfluff"), "lint", "--disable-progress-bar", "dbt_project/models"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"sqlfluff lint dbt_project/models:\n{proc.stdout[-12000:]}\n{proc.stderr[-2000:]}"
