"""The peerlake Python modules a chain's dbt Python models import (the statistics behind a number),
found by following `from metrics… import …` statements, so a bundle carries the code as well as the
SQL. A recompute puts the bundle's copy first on PYTHONPATH, so it runs the code the bundle holds."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the folder that holds the `metrics` package
PACKAGES = ("metrics",)  # what dbt Python models import from peerlake


def _module_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for p in (base / "__init__.py", base.with_suffix(".py")):
        if p.is_file():
            return p
    return None


def _imported(source: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in PACKAGES:
                out.add(node.module)
                out |= {f"{node.module}.{a.name}" for a in node.names}  # `from pkg import submodule`
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] in PACKAGES}
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
        for i in range(1, len(parts) + 1):  # the packages on the way need their __init__.py
            path = _module_file(".".join(parts[:i]))
            if path is None:
                break  # a name imported from a module, not a submodule
            rel = str(path.relative_to(ROOT))
            if rel not in files:
                files[rel] = path.read_bytes()
                todo |= _imported(files[rel].decode("utf-8"))
    return files
