"""Run a Great Expectations suite against a dbt mart in the DuckDB file and report pass/fail.

Plain column checks (not null, unique, accepted values, ranges) are dbt tests in the models' yml (one
`column_checks` test per mart, dbt_project/macros/tests/column_checks.sql); a suite keeps what dbt cannot
say well: checks on derived columns, column pairs, conditional checks, tolerances (`mostly`).

GX 1.x has no DuckDB data source and its SQL route needs a SQLAlchemy dialect for DuckDB (duckdb-engine),
which is not installed, so the mart is read through a read-only DuckDB connection into pandas — only
the columns the suite's expectations name (plus the key) — and validated there. One ephemeral context
serves every gate a process runs (a build runs in one process by default). great_expectations is imported
only when a gate runs (the import alone takes ~2.7 s).

Each suite declares its STAGE: "inputs" gates check the facts statistics are computed from (scores
on the protocol's scale, ratings on the venue's scale, token counts, costs) and run before any
statistic is built, so bad inputs never reach a published number; "statistics" gates check the
statistic marts themselves. A suite may define `derive(frame)` to add per-group columns (e.g. a
histogram's total share) that row-wise expectations then check.
"""

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pandas as pd

from peerlake.warehouse.registry import Registry, import_modules

# Every expectations/suite_<name>.py is the gate suite <name>: its file name registers it (the module is
# the plug-in; orchestration.build_plan reads the same files without importing GX), so a new mart's gate
# is its suite module alone. Imported here, by name, and none skipped.
SUITES: Registry[ModuleType] = Registry(
    "gate suite", error=ValueError,
    hint="Name one of them, or add one: expectations/suite_<name>.py with MODEL, KEY, COLUMNS, STAGE and "
         "expectations() (docs/reference/plugins.md).")
for _suite_module in import_modules("peerlake.expectations", [str(Path(__file__).parent)], prefix="suite_"):
    SUITES.add(_suite_module.__name__.removeprefix("peerlake.expectations.suite_"), _suite_module)

INPUTS = "inputs"
STATISTICS = "statistics"
_unstaged = {name: getattr(m, "STAGE", None) for name, m in SUITES.items()
             if getattr(m, "STAGE", None) not in (INPUTS, STATISTICS)}
if _unstaged:  # a suite without a stage would silently run in neither build stage
    raise ImportError(f"gate suites need STAGE = {INPUTS!r} or {STATISTICS!r}: {_unstaged}")

# suite name -> the dbt model it checks
GATES: dict[str, str] = {name: module.MODEL for name, module in SUITES.items()}
# The same, split by stage: input gates run between building the facts and building statistics.
INPUT_GATES: dict[str, str] = {n: m.MODEL for n, m in SUITES.items() if m.STAGE == INPUTS}
STATISTIC_GATES: dict[str, str] = {n: m.MODEL for n, m in SUITES.items() if m.STAGE == STATISTICS}

MAX_EXAMPLES = 5


@dataclass(frozen=True)
class GateResult:
    suite_name: str
    model: str
    success: bool
    failures: list[str] = field(default_factory=list)
    statistics: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One status line, then one line per failed expectation."""
        stats = self.statistics
        head = f"gate {self.suite_name} on {self.model}: {'PASS' if self.success else 'FAIL'}"
        if stats.get("empty_mart"):  # run_gate on a mart with no rows: nothing evaluated, nothing can fail
            head += " (0 rows: every expectation holds)"
        else:
            head += (f" ({stats.get('successful_expectations', 0)}/{stats.get('evaluated_expectations', 0)}"
                     f" expectations met, {stats.get('rows', 0)} rows)")
        return "\n".join([head, *(f"  - {f}" for f in self.failures)])


def _suite(suite_name: str) -> ModuleType:
    return SUITES[suite_name]  # ValueError for an unknown name, with the known ones


def run_gate(suite_name: str, duckdb_path: Path, *, schema: str = "main") -> GateResult:
    """Validate the suite's dbt model in the DuckDB file at `duckdb_path` (opened read-only).

    The file may be a candidate build that is not published yet; `schema` names the schema holding
    the model when the candidate lives beside the published marts in one file."""
    return next(run_gates([suite_name], duckdb_path, schema=schema))


def run_gates(suite_names: Iterable[str], duckdb_path: Path, *, schema: str = "main") -> Iterator[GateResult]:
    """run_gate for each suite in turn, over one read-only connection: opening the file reads its catalog
    (~300 relations), ~40 ms, which a connection per gate paid ~50 times a build."""
    names = list(suite_names)
    for name in names:
        _suite(name)  # an unknown name fails before the file is opened
    duckdb_path = Path(duckdb_path)
    if not duckdb_path.is_file():
        raise FileNotFoundError(f"gate {names[0] if names else ''}: DuckDB file {duckdb_path} does not exist "
                                "(run dbt build first)")
    try:
        con = duckdb.connect(str(duckdb_path), read_only=True)
    except duckdb.Error as exc:
        # Typically the one-writer lock (dbt still has the file open), or a read-write connection
        # to the same file elsewhere in this process.
        raise RuntimeError(f"gate {', '.join(names)}: cannot open {duckdb_path} read-only: {exc}") from exc
    try:
        for name in names:
            result = _read_mart(con, name, duckdb_path, schema)
            yield validate_frame(name, result) if isinstance(result, pd.DataFrame) else result
    finally:
        con.close()


def _read_mart(con, suite_name: str, duckdb_path: Path, schema: str) -> pd.DataFrame | GateResult:
    """The columns of the suite's mart its expectations read, or the gate's result when there is nothing to
    validate (the mart missing or short of columns: failed; no rows: passed)."""
    suite = _suite(suite_name)
    present = {r[0] for r in con.execute(
        "select column_name from information_schema.columns"
        " where table_schema = ? and table_name = ?", [schema, suite.MODEL]).fetchall()}
    missing = [c for c in suite.COLUMNS if c not in present]
    if missing:
        why = ("table not found" if not present
               else f"columns missing: {', '.join(missing)}")
        return GateResult(suite_name, suite.MODEL, False,
                          [f"{schema}.{suite.MODEL} in {duckdb_path}: {why} (run dbt build first?)"],
                          {"rows": 0})
    if not con.execute(f'select exists (select 1 from "{schema}"."{suite.MODEL}")').fetchone()[0]:
        # No rows: the gate passes as validate_frame's empty shortcut says, and without building the
        # suite's expectations, which imports great_expectations (~2.7 s: most of an empty lake's gates).
        return GateResult(suite_name, suite.MODEL, True, [], {"rows": 0, "empty_mart": True})
    cols = ", ".join(f'"{c}"' for c in _columns_read(suite))
    return con.execute(f'select {cols} from "{schema}"."{suite.MODEL}"').df()


def validate_frame(suite_name: str, frame: pd.DataFrame) -> GateResult:
    """Validate an in-memory frame shaped like the suite's model (e.g. before writing it)."""
    suite = _suite(suite_name)
    if frame.empty:
        # Every suite's expectations are about column values (or pairs of them): on no rows each holds
        # vacuously, as Great Expectations itself says (tests/expectations/test_empty_marts.py runs it
        # on an empty frame of every suite to keep that true). A study without reviewer systems or
        # experiments leaves a dozen marts empty; this skips their ~0.5 s validations.
        n = len(suite.expectations())
        return GateResult(suite_name, suite.MODEL, True, [],
                          {"evaluated_expectations": n, "successful_expectations": n, "rows": 0})
    if hasattr(suite, "derive"):
        frame = suite.derive(frame.copy())
    result = _validate(suite_name, suite.expectations(), frame, suite.KEY)
    failures = [_describe_failure(r, len(frame), suite.KEY) for r in result.results if not r.success]
    stats = {**dict(result.statistics), "rows": len(frame)}
    return GateResult(suite_name, suite.MODEL, bool(result.success), failures, stats)


def _columns_read(suite: ModuleType) -> list[str]:
    """The suite's COLUMNS its expectations name (and the key, to name bad rows); all of them for a suite
    with `derive`, whose inputs only its code knows."""
    if hasattr(suite, "derive"):
        return list(suite.COLUMNS)
    named = {suite.KEY}
    for expectation in suite.expectations():
        named.update(_named_columns(expectation))
    return [c for c in suite.COLUMNS if c in named]


def _named_columns(expectation) -> set[str]:
    names = {getattr(expectation, a, None) for a in ("column", "column_A", "column_B")}
    names.update(getattr(expectation, "column_list", None) or ())
    todo = [getattr(expectation, "row_condition", None)]
    while todo:  # a row condition is a tree of and/or conditions over columns
        condition = todo.pop()
        todo.extend(getattr(condition, "conditions", None) or ())
        column = getattr(condition, "column", None)
        names.add(getattr(column, "name", None))
    return names - {None}


@functools.cache
def _batch_definition():
    """One ephemeral context, pandas data source and dataframe asset for every gate in this process:
    creating them per gate cost ~40 ms each (46 gates per build)."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(store_backend_defaults=InMemoryStoreBackendDefaults(),
                               analytics_enabled=False,
                               progress_bars=ProgressBarsConfig(globally=False))
    context = gx.get_context(project_config=config, mode="ephemeral")
    return (context.data_sources.add_pandas("peerlake")
            .add_dataframe_asset("mart")
            .add_batch_definition_whole_dataframe("whole_table"))


def _validate(suite_name: str, expectations: list, frame: pd.DataFrame, key: str):
    import great_expectations as gx

    batch = _batch_definition().get_batch(batch_parameters={"dataframe": frame})
    # The key column rides along with each unexpected value, so a failure names the bad rows.
    result_format = {"result_format": "SUMMARY", "partial_unexpected_count": MAX_EXAMPLES,
                     "unexpected_index_column_names": [key] if key in frame.columns else []}
    # Validated as a whole, never saved to the context's stores: adding a suite (or its expectations one
    # by one) serializes it, a quarter of a gate's time.
    return batch.validate(gx.ExpectationSuite(name=suite_name, expectations=list(expectations)),
                          result_format=result_format)


def _condition_text(condition: Any) -> str:
    if isinstance(condition, dict) and isinstance(condition.get("conditions"), list):
        joiner = f" {condition.get('type', 'and')} "
        return joiner.join(_condition_text(c) for c in condition["conditions"])
    if isinstance(condition, dict) and "is_null" in condition:
        return f"{condition['column'].get('name')} is {'' if condition['is_null'] else 'not '}null"
    if isinstance(condition, dict) and "column" in condition:
        return f"{condition['column'].get('name')} {condition.get('operator')} {condition.get('parameter')!r}"
    return str(condition)


def _describe_failure(result: Any, n_rows: int, key: str) -> str:
    """E.g. `expect_column_values_to_be_between(overall_score, min_value=1.0, max_value=10.0,
    where is_parsed == True): 1 of 9 rows unexpected; values [42.0]; review_score_id ['3f…']`."""
    config = result.expectation_config
    kwargs = dict(config.kwargs)
    column = kwargs.pop("column", None)
    condition = kwargs.pop("row_condition", None)
    kwargs.pop("batch_id", None)
    args = [column] if column else []
    args += [f"{k}={v}" for k, v in kwargs.items() if v is not None]
    if condition:
        args.append(f"where {_condition_text(condition)}")
    text = f"{config.type}({', '.join(str(a) for a in args)})"
    info = result.exception_info or {}
    if info.get("raised_exception"):
        return f"{text}: raised {info.get('exception_message')}"
    detail = result.result or {}
    if detail.get("unexpected_count") is None:
        return f"{text}: observed {detail.get('observed_value')!r}"
    values = [_plain(c["value"]) for c in detail.get("partial_unexpected_counts") or []]
    keys = [_plain(row.get(key)) for row in detail.get("partial_unexpected_index_list") or []]
    message = (f"{text}: {detail['unexpected_count']} of {detail.get('element_count', n_rows)}"
               f" rows unexpected; values {values[:MAX_EXAMPLES]}")
    if keys and column != key:
        message += f"; {key} {keys[:MAX_EXAMPLES]}"
    return message


def _plain(value: Any) -> Any:
    """numpy scalars and missing values print as plain Python values in messages."""
    if isinstance(value, tuple):  # a column pair's offending (A, B) values
        return tuple(_plain(v) for v in value)
    if hasattr(value, "item"):
        value = value.item()
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):  # lists and other non-scalars
        pass
    return value
