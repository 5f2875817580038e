"""Which lane a test runs in. `make test-fast` runs the tests marked neither `pipeline` nor `model`;
`make test` runs them all.

A test is marked by what it reaches, so a new test lands in the right lane without anyone remembering
to mark it: the test's own code, every fixture it uses, and the functions of the test package these
call (transitively) are read for the doors into the slow parts:
- `pipeline`: Dagster materializes assets, dbt runs, or the `peerlake` / `dbt` executable is started
  (the CLI runs Dagster and dbt): seconds to minutes each;
- `model`: the embedded models (a `model` marker the test states, a file named *_model.py, or a helper
  of tests/embedded.py, which find the model files that `make model` installs and `make test-fast`
  does not need).
A door reached only through product code (a test calling a library function that runs dbt) is not
seen: such a test states `pytest.mark.pipeline` itself."""

import importlib
import inspect
import sys
import types
from pathlib import Path

import pytest

# Dagster running assets in-process, or dbt in-process.
PIPELINE_NAMES = frozenset({"materialize", "materialize_to_memory", "execute_in_process", "execute_job", "DbtCli",
                            "DbtCliResource", "dbtRunner"})
# Executables that run the pipeline when started as a subprocess.
PIPELINE_EXECUTABLES = frozenset({"dbt", "peerlake"})
SUBPROCESS_NAMES = frozenset({"subprocess", "Popen"})
# The module whose helpers find (or skip without) the model files.
MODEL_MODULE = "tests.embedded"


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _is_test_code(obj) -> bool:
    return inspect.isfunction(obj) and (obj.__module__ or "").split(".", 1)[0] == "tests"


def _module(name: str) -> types.ModuleType:
    try:
        return sys.modules.get(name) or importlib.import_module(name)
    except (Exception, pytest.skip.Exception):  # a module that skips or fails on import: its own test says so
        return types.ModuleType(name)


_seen: dict[types.CodeType, frozenset[str]] = {}


def reached(func) -> frozenset[str]:
    """The lanes ("pipeline", "model") a function of the test package reaches, by reading its bytecode
    and that of the test-package functions it names."""
    func = inspect.unwrap(func)
    if not inspect.isfunction(func):
        return frozenset()
    code = func.__code__
    if code in _seen:
        return _seen[code]
    _seen[code] = frozenset()  # a recursive helper stops here
    names: set[str] = set()
    consts: set[str] = set()
    for c in _codes(code):
        names.update(c.co_names)
        consts.update(k for k in c.co_consts if isinstance(k, str))
    lanes: set[str] = set()
    if names & PIPELINE_NAMES:
        lanes.add("pipeline")
    if names & SUBPROCESS_NAMES:
        started = consts | {Path(str(v)).name for n in names
                            if isinstance(v := func.__globals__.get(n), (str, Path))}
        if started & PIPELINE_EXECUTABLES:
            lanes.add("pipeline")
    # names imported inside the function (`from tests.dbt.test_marts import dbt_build`) are not globals
    # (an imported module's dotted name is among the code's names, as IMPORT_NAME's argument)
    local = [vars(_module(n)) for n in names if n.startswith("tests.")]
    for name in names:
        obj = func.__globals__[name] if name in func.__globals__ else next(
            (ns[name] for ns in local if name in ns), None)
        if _is_test_code(obj) and obj is not func:
            lanes |= {"model"} if obj.__module__ == MODEL_MODULE else reached(obj)
    _seen[code] = frozenset(lanes)
    return _seen[code]


def mark(items) -> None:
    """Add the `pipeline` / `model` markers each collected test earns (see the module docstring)."""
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        lanes = set(reached(item.obj))
        for defs in item._fixtureinfo.name2fixturedefs.values():
            for fixturedef in defs:
                if _is_test_code(func := inspect.unwrap(fixturedef.func)):
                    lanes |= reached(func)
        if item.nodeid.split("::", 1)[0].endswith("_model.py"):
            lanes.add("model")
        for lane in sorted(lanes):
            if lane not in item.keywords:
                item.add_marker(getattr(pytest.mark, lane))
