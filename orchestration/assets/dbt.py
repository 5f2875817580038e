"""All dbt models as Dagster assets, in two stages. Event-log sources map onto the assets that write
them (each source's meta.dagster.asset_key), so the lineage graph is one piece: manuscripts →
stg_events__papers → … → marts."""

from collections.abc import Mapping
from typing import Any

from dagster import AssetExecutionContext, AssetKey, MaterializeResult, asset
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets

from expectations.gates import INPUT_GATES, MAX_EXAMPLES
from orchestration.dbt_folders import prune_run_folders
from orchestration.project import peerlake_dbt
from orchestration.resources import LakeResource

# DuckDB allows one process on the file; every step that opens it carries this tag, and the
# executor limits the tag to one step at a time (see definitions.py).
DUCKDB_TAG = {"peerlake/duckdb": "serial"}


class PeerlakeDbtTranslator(DagsterDbtTranslator):
    """A source's key is the asset that writes its events: `meta.dagster.asset_key` in the sources yml
    (models/staging/_events__sources.yml), read by dagster-dbt's own get_asset_key."""

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        return f"dbt_{fqn[1]}" if len(fqn) > 2 else "dbt"


# Two stages, so bad inputs never reach a statistic: stage 1 builds the marts the input gates check
# (scores, human ratings, calls, papers) and everything they are built from; their blocking checks
# run next; only then does stage 2 build the statistics. Both write the candidate file, never the
# published one (warehouse.publish).
INPUT_MARTS = sorted(set(INPUT_GATES.values()))
INPUTS_SELECT = " ".join(f"+{m}" for m in INPUT_MARTS)
AUDITED_INPUTS = AssetKey("audited_inputs")


@asset(group_name="publish", deps=[AssetKey(m) for m in INPUT_MARTS],
       description="Marks that every input mart passed its gate on the candidate; the statistics "
                   "(dbt stage 2) are built only after it.")
def audited_inputs() -> MaterializeResult:
    # A blocking check holds back only the assets downstream of the one it checks. The statistics
    # read intermediate models (never marts), not the gated input marts, so lineage alone would
    # let them run past a failed input gate; this asset sits between the two stages instead.
    return MaterializeResult(metadata={"input_gates": ", ".join(sorted(INPUT_GATES))})


class StatisticsTranslator(PeerlakeDbtTranslator):
    """Stage 2: each model that reads a stage-1 model also waits for `audited_inputs`."""

    def get_asset_spec(self, manifest, unique_id, project):
        spec = super().get_asset_spec(manifest, unique_id, project)
        stage_one = _stage_one_ids(manifest)
        parents = manifest["parent_map"].get(unique_id, [])
        if unique_id.startswith("model.") and unique_id not in stage_one and stage_one.intersection(parents):
            spec = spec.merge_attributes(deps=[AUDITED_INPUTS])
        return spec


_STAGE_ONE: dict[int, set[str]] = {}


def _stage_one_ids(manifest) -> set[str]:
    """The input marts and all their ancestors: what `--select INPUTS_SELECT` builds."""
    if id(manifest) not in _STAGE_ONE:
        todo = [uid for uid, n in manifest["nodes"].items()
                if n["resource_type"] == "model" and n["name"] in INPUT_MARTS]
        seen: set[str] = set()
        while todo:
            uid = todo.pop()
            if uid not in seen:
                seen.add(uid)
                todo.extend(manifest["parent_map"].get(uid, []))
        _STAGE_ONE[id(manifest)] = seen
    return _STAGE_ONE[id(manifest)]


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, select=INPUTS_SELECT,
            dagster_dbt_translator=PeerlakeDbtTranslator(), op_tags=DUCKDB_TAG)
def dbt_inputs(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """Stage 1: the input marts, built into a candidate that starts as a copy of the published file."""
    _begin(context, lake)
    yield from _build(context, dbt)


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, exclude=INPUTS_SELECT,
            dagster_dbt_translator=StatisticsTranslator(), op_tags=DUCKDB_TAG)
def dbt_statistics(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """Stage 2: every other model (statistics, costs), from input marts whose gates passed."""
    _begin(context, lake)
    yield from _build(context, dbt)


def _begin(context: AssetExecutionContext, lake: LakeResource) -> None:
    """The run's first dbt step seals the log (dbt reads sealed segments only) and starts the candidate
    from the published file; a build that rebuilds only statistics (orchestration.build_plan) has no
    stage 1, so either stage may be first."""
    from warehouse import settings
    from warehouse.publish import BUILDING, candidate_status, reset_candidate

    root = lake.lake()
    status = candidate_status(root) or {}
    if not (status.get("state") == BUILDING and status.get("run_id") == context.run.run_id):
        lake.event_log().seal()  # once per build, so both stages read the same committed events
    reset_candidate(root, context.run.run_id)
    settings.export_lake_env()


def _build(context: AssetExecutionContext, dbt: DbtCliResource):
    """`dbt build` of this step's models, starting from the project's last parse.

    dagster-dbt seeds each invocation with target/partial_parse.msgpack (written by prepare_dbt_manifest's
    `dbt parse`), and dbt reuses it while the profile and the project files are unchanged. Neither names
    a lake: the profile is constant and the lake's file and segments are read when dbt connects (the
    warehouse.duckdb_s3 plugin) and when a model is compiled (macros/source.sql), so every lake starts
    from the same parse instead of parsing from scratch (~4 s per invocation)."""
    from warehouse import settings

    try:
        yield from _naming_failing_rows(dbt.cli(["build"], context=context))
    finally:
        prune_run_folders(settings.dbt_target_dir())


MAX_FAILING_ROWS = MAX_EXAMPLES  # as many offending rows as a Great Expectations gate names


def _naming_failing_rows(invocation):
    """The invocation's events, with each failed dbt test's result held back until dbt has exited and then
    yielded naming the rows that broke it. DuckDB lets one process open the file and dbt holds the
    candidate until it exits, so the rows can only be read then; the result is still yielded before the
    step ends, so a failed blocking test still stops everything downstream, publishing included."""
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
        yield from _with_failing_rows(held, invocation)
        raise
    yield from _with_failing_rows(held, invocation)  # a warn-severity test fails without failing dbt


def _with_failing_rows(held: list, invocation):
    """Each held test result, its description naming up to MAX_FAILING_ROWS failing rows and their count
    (read-only, from the file dbt built into); an error-severity failure is also noted on the candidate,
    so `peerlake query` can say which test kept the build from publishing."""
    from dagster import AssetCheckSeverity

    from warehouse import Lake, settings
    from warehouse.publish import record_gate_failure

    if not held:
        return
    try:  # each test's SQL as dbt ran it; written when dbt exits, a failed test or not
        compiled = {r["unique_id"]: r.get("compiled_code") for r in
                    invocation.get_artifact("run_results.json")["results"]}
    except (OSError, ValueError, KeyError):
        compiled = {}
    for event in held:
        try:
            description = _describe_failed_test(
                invocation.manifest, _plain(event.metadata["unique_id"]), compiled,
                _plain(event.metadata.get("dagster_dbt/failed_row_count")), settings.dbt_duckdb_path())
        except Exception as exc:  # naming the rows must never hide the failure itself
            description = f"dbt test {event.check_name}: its failing rows could not be read ({exc!r})"
        if event.severity == AssetCheckSeverity.ERROR:
            record_gate_failure(Lake.default(), event.check_name, description)
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
    """The model's key: the column its yml tests `unique` (the first, if several are)."""
    for node in manifest["nodes"].values():
        if (node["resource_type"] == "test" and node.get("attached_node") == model_id
                and (node.get("test_metadata") or {}).get("name") == "unique"):
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
    from warehouse import duckdb_s3

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


# What `published_marts` waits for: every mart, so a failed gate on any of them publishes nothing.
MART_KEYS = sorted((k for a in (dbt_inputs, dbt_statistics) for k, spec in a.specs_by_key.items()
                    if spec.group_name == "dbt_marts"),
                   key=lambda k: k.to_user_string())
