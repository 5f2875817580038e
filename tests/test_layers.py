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
# the folders that are subpackages of peerlake: each a relative link peerlake/<folder> -> ../<folder>
FOLDERS = sorted(p.name for p in (REPO / "peerlake").iterdir() if p.is_symlink())


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    # --no-cache: no .import_linter_cache/.grimp_cache left in the tree; PYTHONPATH first so the
    # packages under `root` shadow the editable install of the checkout.
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_every_folder_is_a_subpackage_of_peerlake_through_a_relative_link():
    assert len(FOLDERS) == 15
    for name in FOLDERS:
        assert os.readlink(REPO / "peerlake" / name) == f"../{name}" and (REPO / name / "__init__.py").is_file()


def test_code_keeps_the_layer_contract():
    proc = lint_imports(REPO)
    assert proc.returncode == 0, f"lint-imports:\n{proc.stdout}\n{proc.stderr}"
    # Every contract ran; a contract dropped from pyproject.toml must be a decision, not an accident.
    assert "Contracts: 3 kept, 0 broken." in proc.stdout, proc.stdout


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}\n")


def test_contract_reports_each_kind_of_break(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REPO / "pyproject.toml", src)
    for pkg in ["peerlake", *FOLDERS]:  # the links copied as links: they point into the copy
        shutil.copytree(REPO / pkg, src / pkg, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "target", "logs", "lake", "*.sql", "*.yml"))
    _append(src / "warehouse" / "lake.py", "import peerlake.reviewing  # upward")
    _append(src / "llm_calls" / "cost.py", "import peerlake.prompts  # independent sibling")
    _append(src / "warehouse" / "settings.py", "import peerlake.warehouse.fsutil  # into the floor's settings")
    (src / "metrics" / "cycle_a.py").write_text("import peerlake.metrics.cycle_b\n")
    (src / "metrics" / "cycle_b.py").write_text("import peerlake.metrics.cycle_a\n")

    out = lint_imports(src).stdout
    assert "Contracts: 0 kept, 3 broken." in out, out
    for expected in ["peerlake.warehouse.lake -> peerlake.reviewing", "peerlake.llm_calls.cost -> peerlake.prompts",
                     "peerlake.warehouse.settings -> peerlake.warehouse.fsutil",
                     "No cycles are allowed in peerlake.metrics.", ".cycle_a"]:
        assert expected in out, f"{expected!r} not reported:\n{out}"
