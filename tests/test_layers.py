"""The layer contract in pyproject.toml ([tool.importlinter]) holds for the code, and it has teeth:
each kind of break it is meant to stop (an upward import, an import between independent siblings, an
import into the floor's settings, a cycle inside a package) is reported on a copy that has one."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ["peerlake", "orchestration", "report", "audit", "costs", "expectations", "metrics", "dbt_project",
            "studies", "reviewing", "judging", "ingest", "llm_calls", "retrieval", "prompts", "warehouse"]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    # --no-cache: no .import_linter_cache/.grimp_cache left in the tree; PYTHONPATH first so the
    # packages under `root` shadow the editable install of the checkout.
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_code_keeps_the_layer_contract():
    proc = lint_imports(REPO)
    assert proc.returncode == 0, f"lint-imports:\n{proc.stdout}\n{proc.stderr}"
    # Every contract ran; a contract dropped from pyproject.toml must be a decision, not an accident.
    assert "Contracts: 3 kept, 0 broken." in proc.stdout, proc.stdout


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}\n")


def test_contract_reports_each_kind_of_break(tmp_path):
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    for pkg in PACKAGES:
        shutil.copytree(REPO / pkg, tmp_path / pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "target", "logs", "*.sql", "*.yml"))
    _append(tmp_path / "warehouse" / "lake.py", "import reviewing  # upward")
    _append(tmp_path / "llm_calls" / "cost.py", "import prompts  # independent sibling")
    _append(tmp_path / "warehouse" / "settings.py", "import warehouse.fsutil  # into the floor's settings")
    (tmp_path / "metrics" / "cycle_a.py").write_text("import metrics.cycle_b\n")
    (tmp_path / "metrics" / "cycle_b.py").write_text("import metrics.cycle_a\n")

    out = lint_imports(tmp_path).stdout
    assert "Contracts: 0 kept, 3 broken." in out, out
    for expected in ["warehouse.lake -> reviewing", "llm_calls.cost -> prompts",
                     "warehouse.settings -> warehouse.fsutil", "No cycles are allowed in metrics.", ".cycle_a"]:
        assert expected in out, f"{expected!r} not reported:\n{out}"
