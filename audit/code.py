"""The code behind a number: the peerlake Python modules a chain's dbt Python models import (the
statistics), found by following `from peerlake.metrics… import …` statements, and the code version a bundle
records — the package version and two hashes, of the dbt project and of the statistics sources.

A bundle carries its code as evidence to read; `peerlake audit check` never runs it: it recomputes with
the installed project and statistics and compares their hashes with the bundle's record. Each hash is a
pure function of (relative path, bytes) of the files, so both sides compute it the same way."""

import ast
import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the folder that holds the `audit` and `metrics` folders
# The installed dbt project (dbt_project.PROJECT_DIR, a sibling package wherever peerlake is installed),
# found by path: the layers keep audit from importing dbt_project.
PROJECT_DIR = ROOT / "dbt_project"
PACKAGES = ("peerlake.metrics",)  # what dbt Python models import from peerlake
# What decides what dbt computes; README.md, __init__.py (the package shell) and dbt's own output are not.
DBT_FILES = ("dbt_project.yml", "profiles.yml", "packages.yml")
DBT_FOLDERS = ("models", "macros", "seeds", "snapshots", "tests", "analyses")


def _module_file(module: str) -> Path | None:
    # `peerlake.metrics.x` lives in ROOT/metrics/x.py both in a checkout (the folder maps to the
    # package) and installed (ROOT is site-packages/peerlake): paths are ROOT-relative without the prefix.
    base = ROOT.joinpath(*module.removeprefix("peerlake.").split("."))
    for p in (base / "__init__.py", base.with_suffix(".py")):
        if p.is_file():
            return p
    return None


def _imported(source: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith(PACKAGES):
                out.add(node.module)
                out |= {f"{node.module}.{a.name}" for a in node.names}  # `from pkg import submodule`
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith(PACKAGES)}
    return out


def python_closure(sources: list[str]) -> dict[str, bytes]:
    """ROOT-relative path -> bytes of every module (and its packages' __init__.py) that the given
    Python sources import from peerlake, transitively."""
    files: dict[str, bytes] = {}
    todo = set().union(*(_imported(s) for s in sources)) if sources else set()
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        for i in range(2, len(parts) + 1):  # the packages on the way need their __init__.py (not peerlake's)
            path = _module_file(".".join(parts[:i]))
            if path is None:
                break  # a name imported from a module, not a submodule
            rel = path.relative_to(ROOT).as_posix()
            if rel not in files:
                files[rel] = path.read_bytes()
                todo |= _imported(files[rel].decode("utf-8"))
    return files


def tree_sha256(files: dict[str, bytes]) -> str:
    """SHA-256 of the `sha256sum`-style listing ("<sha256>  <path>\\n", sorted by path): the same
    files give the same hash wherever they are installed."""
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {rel}\n" for rel, data in sorted(files.items()))
    return hashlib.sha256(listing.encode()).hexdigest()


def dbt_project_files(project_dir: Path) -> dict[str, bytes]:
    """Project-relative path -> bytes of every file that decides what the dbt project computes."""
    out = {f: (project_dir / f).read_bytes() for f in DBT_FILES if (project_dir / f).is_file()}
    for folder in DBT_FOLDERS:
        for p in sorted((project_dir / folder).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                out[p.relative_to(project_dir).as_posix()] = p.read_bytes()
    return out


def statistics_files(project_dir: Path) -> dict[str, bytes]:
    """ROOT-relative path -> bytes of the statistics every dbt Python model of the project imports."""
    models = [p.read_text() for p in sorted((project_dir / "models").rglob("*.py"))]
    return python_closure(models)


def peerlake_version() -> str | None:
    try:
        return version("peerlake")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return None


def code_version(project_dir: Path) -> dict[str, str | None]:
    """What row.json records as "code": the installed package version and the two hashes."""
    return {"peerlake_version": peerlake_version(),
            "dbt_project_sha256": tree_sha256(dbt_project_files(project_dir)),
            "statistics_sha256": tree_sha256(statistics_files(project_dir))}
