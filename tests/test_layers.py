"""The layer contract in pyproject.toml ([tool.importlinter]) holds for the code, and it has teeth:
each kind of break it is meant to stop (an upward import, an import between independent siblings, an
import into the floor's settings, a cycle inside a package) is reported on a copy that has one."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.layout import folders, package_view

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path, view: Path) -> subprocess.CompletedProcess:
    # --no-cache: no .import_linter_cache/.grimp_cache left in the tree; the view of `root` as the
    # installed package first on PYTHONPATH, so it shadows the editable install of the checkout.
    package_view(root, view)
    env = {**os.environ, "PYTHONPATH": str(view)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(root / "pyproject.toml")],
                          cwd=view, env=env, capture_output=True, text=True, timeout=300)


def test_code_keeps_the_layer_contract(tmp_path):
    proc = lint_imports(REPO, tmp_path / "view")
    assert proc.returncode == 0, f"lint-imports:\n{proc.stdout}\n{proc.stderr}"
    # Every contract ran; a contract dropped from pyproject.toml must be a decision, not an accident.
    assert "Contracts: 3 kept, 0 broken." in proc.stdout, proc.stdout


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}\n")


def test_contract_reports_each_kind_of_break(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REPO / "pyproject.toml", src)
    for pkg in ["peerlake", *folders()]:
        shutil.copytree(REPO / pkg, src / pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "target", "logs", "lake", "*.sql", "*.yml"))
    _append(src / "warehouse" / "lake.py", "import peerlake.reviewing  # upward")
    _append(src / "llm_calls" / "cost.py", "import peerlake.prompts  # independent sibling")
    _append(src / "warehouse" / "settings.py", "import peerlake.warehouse.fsutil  # into the floor's settings")
    (src / "metrics" / "cycle_a.py").write_text("import peerlake.metrics.cycle_b\n")
    (src / "metrics" / "cycle_b.py").write_text("import peerlake.metrics.cycle_a\n")

    out = lint_imports(src, tmp_path / "view").stdout
    assert "Contracts: 0 kept, 3 broken." in out, out
    for expected in ["peerlake.warehouse.lake -> peerlake.reviewing", "peerlake.llm_calls.cost -> peerlake.prompts",
                     "peerlake.warehouse.settings -> peerlake.warehouse.fsutil",
                     "No cycles are allowed in peerlake.metrics.", ".cycle_a"]:
        assert expected in out, f"{expected!r} not reported:\n{out}"
