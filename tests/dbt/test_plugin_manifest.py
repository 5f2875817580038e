"""The dbt project's graph is the same with and without plug-in judges. Dagster's asset graph comes from a
parsed manifest that is cached and shared by every process of a checkout; a dependency that appeared only
when $PEERLAKE_PLUGIN_JUDGES is set made a run without plug-ins, on a manifest parsed with one, fail
("int_quality_declared_repeats was yielded before its dependency int_judged_reviews")."""

import json
import os
import subprocess
import sys
from pathlib import Path

from peerlake.dbt_project import PROJECT_DIR

PLUGIN = Path(__file__).resolve().parents[1] / "judging" / "plugin_questions"
DBT = Path(sys.executable).with_name("dbt")


def _parse(tmp_path: Path, name: str, extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_PLUGIN_JUDGES"}
    env.update({"PEERLAKE_HOME": str(tmp_path), "PEERLAKE_DUCKDB_PATH": str(tmp_path / "x.duckdb"),
                "DBT_LOG_PATH": str(tmp_path / f"logs-{name}"), **extra})
    target = tmp_path / f"target-{name}"
    proc = subprocess.run([str(DBT), "parse", "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
                           "--target-path", str(target), "--no-partial-parse"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    manifest = json.loads((target / "manifest.json").read_text())
    return {uid: sorted(node["depends_on"]["nodes"]) for uid, node in manifest["nodes"].items()}


def test_plugin_judges_change_no_dependency_of_the_graph(tmp_path):
    declaration = subprocess.run(
        [sys.executable, "-c", "import json; from peerlake.judging.registry import plugin_declaration as p; "
                               "print(json.dumps(p()))"],
        env={**os.environ, "PEERLAKE_PLUGINS": str(PLUGIN)}, capture_output=True, text=True, check=True).stdout
    assert '"judge": "questions"' in declaration
    without = _parse(tmp_path, "without", {})
    with_plugin = _parse(tmp_path, "with", {"PEERLAKE_PLUGIN_JUDGES": declaration.strip()})
    assert without.keys() == with_plugin.keys()
    changed = sorted(uid for uid in without if without[uid] != with_plugin[uid])
    assert changed == []
    declared = "model.peerlake.int_quality_declared_repeats"
    assert "model.peerlake.int_judged_reviews" in without[declared]
