"""A failed dbt data test, named like a failed gate: up to MAX_FAILING_ROWS of the rows that broke it
(their key, and for a column_checks test the checks they break) and their count, in the check's
description, so the CLI says which rows to look at."""

from collections.abc import Mapping
from typing import Any

from peerlake.expectations.gates import MAX_EXAMPLES

MAX_FAILING_ROWS = MAX_EXAMPLES  # as many offending rows as a Great Expectations gate names


def naming_failing_rows(invocation, lake):
    """The invocation's events, with each failed dbt test's result held back until dbt has exited and then
    yielded naming the rows that broke it. DuckDB lets one process open the file and dbt holds the
    candidate until it exits, so the rows can only be read then; the result is still yielded before the
    step ends, so a failed blocking test still stops everything downstream, publishing included. `lake`
    is the run's lake, whose candidate notes the failure."""
    from dagster import AssetCheckResult
    from dagster_dbt.errors import DagsterDbtCliRuntimeError

    held = []
    try:
        for event in invocation.stream():
            if isinstance(event, AssetCheckResult) and not event.passed and "unique_id" in event.metadata:
                held.append(event)
            else:
                yield event
    except DagsterDbtCliRuntimeError:  # dbt exits 1 when a test fails: name its rows, then fail the step
        yield from _with_failing_rows(held, invocation, lake)
        raise
    yield from _with_failing_rows(held, invocation, lake)  # a warn-severity test fails without failing dbt


def _with_failing_rows(held: list, invocation, lake):
    """Each held test result, its description naming up to MAX_FAILING_ROWS failing rows and their count
    (read-only, from the file dbt built into); an error-severity failure is also noted on the candidate,
    so `peerlake query` can say which test kept the build from publishing."""
    from dagster import AssetCheckSeverity

    from peerlake.warehouse import settings
    from peerlake.warehouse.publish import record_gate_failure

    if not held:
        return
    try:  # each test's SQL as dbt ran it; written when dbt exits, a failed test or not
        compiled = {r["unique_id"]: r.get("compiled_code") for r in
                    invocation.get_artifact("run_results.json")["results"]}
    except (OSError, ValueError, KeyError):
        compiled = {}
    for event in held:
        unique_id = _plain(event.metadata["unique_id"])
        try:
            description = _describe_failed_test(
                invocation.manifest, unique_id, compiled,
                _plain(event.metadata.get("dagster_dbt/failed_row_count")), settings.dbt_duckdb_path())
        except Exception as exc:  # naming the rows must never hide the failure itself
            description = f"dbt test {event.check_name}: its failing rows could not be read ({exc!r})"
        if event.severity == AssetCheckSeverity.ERROR:
            model = invocation.manifest["nodes"].get(unique_id, {}).get("attached_node") or ""
            record_gate_failure(lake, event.check_name, description, relation=model.rpartition(".")[2] or None)
        yield event._replace(description=description)


def _plain(value):
    return getattr(value, "value", value)  # a MetadataValue's payload


def _describe_failed_test(manifest: Mapping[str, Any], unique_id: str, compiled: Mapping[str, str | None],
                          count: int | None, database) -> str:
    """E.g. `dbt test fct_human_reviews_column_checks on fct_human_reviews: 1 failing row` and a line per
    row: its key (the model's `unique`-tested column, else the row's first columns) and, for a
    `column_checks` test, the checks it breaks (its failed_checks column)."""
    import duckdb

    test = manifest["nodes"][unique_id]
    model = manifest["nodes"].get(test.get("attached_node") or "", {})
    key = _unique_key(manifest, model.get("unique_id"))
    column = test.get("column_name")
    head = f"dbt test {test['name']}" + (f" on {model['name']}" if model else "")
    try:
        sql = _failing_rows_sql(test, model, key, compiled.get(unique_id))
        rows, counted = _read_rows(database, model.get("database") or test["database"], sql, key)
    except (duckdb.Error, OSError, LookupError) as exc:
        rows, counted = [], None
        head += f" (its failing rows could not be read: {type(exc).__name__}: {exc})"
    count = count if count is not None else counted
    if count is not None:
        head += f": {count} failing row{'' if count == 1 else 's'}"
        if count > len(rows) > 0:
            head += f", the first {len(rows)}"
    return "\n".join([head, *(f"  - {_row_text(row, key, column)}" for row in rows)])


def _unique_key(manifest: Mapping[str, Any], model_id: str | None) -> str | None:
    """The model's key: the column its yml tests `unique` (the first, if several are), in its column_checks
    test (dbt_project/macros/tests/column_checks.sql) or as a column's own `unique` test."""
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test" or node.get("attached_node") != model_id:
            continue
        meta = node.get("test_metadata") or {}
        if meta.get("name") == "column_checks" and (meta.get("kwargs") or {}).get("unique"):
            return meta["kwargs"]["unique"][0]
        if meta.get("name") == "unique":
            return node.get("column_name")
    return None


def _failing_rows_sql(test: Mapping[str, Any], model: Mapping[str, Any], key: str | None,
                      compiled: str | None) -> str:
    """The test's own query, except for a not_null test: dbt selects only the (null) column there, so the
    model's rows with that column null are read instead, which carry their key (or, when the key is the
    null column, the row's first columns)."""
    name = (test.get("test_metadata") or {}).get("name")
    column = test.get("column_name")
    if name == "not_null" and column and model.get("relation_name") and not test["config"].get("where"):
        return f'select * from {model["relation_name"]} where "{column}" is null'
    if not compiled:
        raise LookupError(f"no compiled SQL for {test['unique_id']} in run_results.json")
    return compiled


def _read_rows(database, catalog: str, sql: str, key: str | None) -> tuple[list[dict], int]:
    """Up to MAX_FAILING_ROWS rows of `sql` (ordered by the key when they carry it) and their count, read
    from the file at `database` attached read-only under the catalog name dbt's SQL uses, as dbt's
    plugin attaches it (warehouse.duckdb_s3)."""
    from peerlake.warehouse import duckdb_s3

    # a staging view reads the segments, on object storage for a remote lake: connect as the marts' readers do
    con = duckdb_s3.connect()
    try:
        path = str(database).replace("'", "''")
        con.execute(f'attach \'{path}\' as "{catalog}" (read_only)')
        con.execute(f'use "{catalog}"')
        inner = f"({sql}\n) as failing"  # a newline ends a trailing `--` comment in the test's SQL
        columns = [d[0] for d in con.execute(f"select * from {inner} limit 0").description]
        order = f'"{key}"' if key in columns else "all"
        cur = con.execute(f"select * from {inner} order by {order} limit {MAX_FAILING_ROWS}")
        rows = [dict(zip(columns, values, strict=True)) for values in cur.fetchall()]
        return rows, con.execute(f"select count(*) from {inner}").fetchone()[0]
    finally:
        con.close()


def _row_text(row: Mapping[str, Any], key: str | None, column: str | None) -> str:
    """`human_review_id 'H1': has_known_paper not in accepted values`; without a key (a unique or
    accepted_values test's grouped rows, or a null key) the row's first three columns."""
    shown = [key] if key in row and row[key] is not None else [c for c in row if c != "failed_checks"][:3]
    text = ", ".join(f"{c} {_value_text(row[c])}" for c in shown)
    if row.get("failed_checks"):
        return f"{text}: {row['failed_checks']}"
    if column in row and column not in shown and row[column] is not None:  # e.g. a `between` test's value
        return f"{text} ({column} {_value_text(row[column])})"
    return text


def _value_text(value) -> str:
    return "null" if value is None else repr(value) if isinstance(value, str) else str(value)


