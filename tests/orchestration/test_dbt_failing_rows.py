"""A failed dbt test names the rows that broke it (orchestration.assets.dbt): up to five, by the model's
`unique`-tested key, with each row's failed_checks for a column_checks test, read read-only from the file
dbt built into once dbt has exited. The end-to-end case through `peerlake build` is in
tests/expectations/test_column_checks.py; here a hand-made manifest and DuckDB file, and the SQL dbt-core
compiles its generic tests to, cover unique, not_null and accepted_values without running dbt."""

import duckdb
import pytest
from dagster import AssetCheckResult, AssetCheckSeverity, AssetKey, Output
from dagster_dbt.errors import DagsterDbtCliRuntimeError

MODEL = "model.peerlake.m"
RELATION = '"peerlake"."main"."m"'


def _test(name: str, kind: str, column: str | None = None) -> tuple[str, dict]:
    uid = f"test.peerlake.{name}.0"
    return uid, {"unique_id": uid, "resource_type": "test", "name": name, "attached_node": MODEL,
                 "test_metadata": {"name": kind}, "column_name": column, "config": {"where": None},
                 "database": "peerlake"}


TESTS = dict([_test("unique_m_id", "unique", "m_id"), _test("not_null_m_paper_id", "not_null", "paper_id"),
              _test("not_null_m_m_id", "not_null", "m_id"),
              _test("accepted_values_m_status", "accepted_values", "status"),
              _test("m_column_checks", "column_checks")])
MANIFEST = {"nodes": {MODEL: {"unique_id": MODEL, "resource_type": "model", "name": "m", "database": "peerlake",
                              "relation_name": RELATION}, **TESTS}}
# What dbt-core compiles its generic tests (and the project's column_checks) to for this model.
COMPILED = {
    "test.peerlake.unique_m_id.0": f"select m_id as unique_field, count(*) as n_records from {RELATION}"
                                   " where m_id is not null group by m_id having count(*) > 1",
    "test.peerlake.not_null_m_paper_id.0": f"select paper_id from {RELATION} where paper_id is null",
    "test.peerlake.not_null_m_m_id.0": f"select m_id from {RELATION} where m_id is null",
    "test.peerlake.accepted_values_m_status.0": (
        f"with all_values as (select status as value_field, count(*) as n_records from {RELATION}"
        " group by status) select * from all_values where value_field not in ('ok')"),
    "test.peerlake.m_column_checks.0": (
        f"with checked as (select *, concat_ws('; ', case when status not in ('ok') then 'status not in"
        " accepted values' end, case when paper_id is null then 'paper_id is null' end) as failed_checks"
        f" from {RELATION}) select * from checked where failed_checks <> ''  -- a trailing comment"),
}


@pytest.fixture
def database(tmp_path):
    # Not named peerlake.duckdb: the rows are read under the catalog name dbt's SQL uses, whatever the file.
    path = tmp_path / "candidate.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("create table m (m_id varchar, paper_id varchar, status varchar)")
        con.execute("insert into m values ('g', null, 'ok'), ('a', null, 'ok'), ('b', 'P1', 'bad'), ('b', 'P2', 'ok'),"
                    " ('c', null, 'ok'), ('d', null, 'bad'), ('e', null, 'ok'), ('f', null, 'ok'), ('h', 'P3', 'ok'),"
                    " (null, 'P4', 'ok')")
    return path


def _describe(name: str, database, count: int | None = None) -> str:
    from peerlake.orchestration.dbt_failures import _describe_failed_test

    return _describe_failed_test(MANIFEST, f"test.peerlake.{name}.0", COMPILED, count, database)


@pytest.fixture(autouse=True)
def _manifest(lake):
    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()  # orchestration.assets.dbt builds its assets from the parsed project at import


def test_a_unique_test_names_the_duplicated_keys(database):
    assert _describe("unique_m_id", database) == (
        "dbt test unique_m_id on m: 1 failing row\n  - unique_field 'b', n_records 2")


def test_a_not_null_test_names_the_keys_of_the_null_rows_first_five_by_key(database):
    # dbt's own query selects only the null column; the rows are read from the model to carry their key
    assert _describe("not_null_m_paper_id", database, count=6) == (
        "dbt test not_null_m_paper_id on m: 6 failing rows, the first 5\n"
        "  - m_id 'a'\n  - m_id 'c'\n  - m_id 'd'\n  - m_id 'e'\n  - m_id 'f'")


def test_a_null_key_shows_the_rows_first_columns(database):
    assert _describe("not_null_m_m_id", database) == (
        "dbt test not_null_m_m_id on m: 1 failing row\n  - m_id null, paper_id 'P4', status 'ok'")


def test_accepted_values_names_the_values_and_their_counts(database):
    assert _describe("accepted_values_m_status", database) == (
        "dbt test accepted_values_m_status on m: 1 failing row\n  - value_field 'bad', n_records 2")


def test_column_checks_names_each_rows_key_and_checks(database):
    text = _describe("m_column_checks", database)
    assert text.splitlines()[:4] == [
        "dbt test m_column_checks on m: 7 failing rows, the first 5", "  - m_id 'a': paper_id is null",
        "  - m_id 'b': status not in accepted values", "  - m_id 'c': paper_id is null"]
    assert "  - m_id 'd': status not in accepted values; paper_id is null" in text


def test_unreadable_rows_still_say_which_test_failed(tmp_path):
    text = _describe("unique_m_id", tmp_path / "missing" / "candidate.duckdb", count=3)
    assert text.startswith("dbt test unique_m_id on m (its failing rows could not be read: ")
    assert text.endswith(": 3 failing rows")


class _Invocation:
    """What _naming_failing_rows uses of dagster-dbt's DbtCliInvocation."""

    manifest = MANIFEST

    def __init__(self, events):
        self._events = events

    def stream(self):
        yield from self._events
        raise DagsterDbtCliRuntimeError(description="dbt exited 1: a test failed")

    def get_artifact(self, name):
        assert name == "run_results.json"
        return {"results": [{"unique_id": uid, "compiled_code": sql} for uid, sql in COMPILED.items()]}


def test_a_failed_test_is_held_until_dbt_exits_then_yielded_before_the_step_fails(lake, database, monkeypatch):
    from peerlake.orchestration.dbt_failures import naming_failing_rows as _naming_failing_rows
    from peerlake.warehouse.publish import candidate_status

    monkeypatch.setenv("PEERLAKE_DUCKDB_PATH", str(database))
    failed = AssetCheckResult(passed=False, asset_key=AssetKey("m"), check_name="unique_m_id",
                              severity=AssetCheckSeverity.ERROR,
                              metadata={"unique_id": "test.peerlake.unique_m_id.0", "dagster_dbt/failed_row_count": 1})
    passed = AssetCheckResult(passed=True, asset_key=AssetKey("m"), check_name="not_null_m_m_id",
                              metadata={"unique_id": "test.peerlake.not_null_m_m_id.0"})
    output = Output(None, output_name="m")
    seen = []
    with pytest.raises(DagsterDbtCliRuntimeError):  # the step still fails, after the check result
        for event in _naming_failing_rows(_Invocation([output, failed, passed]), lake):
            seen.append(event)
    assert seen[:2] == [output, passed]  # a failed test waits for dbt to let go of the file
    assert len(seen) == 3 and not seen[2].passed and seen[2].check_name == "unique_m_id"
    assert seen[2].description == "dbt test unique_m_id on m: 1 failing row\n  - unique_field 'b', n_records 2"
    # and `peerlake query` can say which test kept the build from publishing
    assert candidate_status(lake)["failed_gates"] == {"unique_m_id": seen[2].description}
    assert candidate_status(lake)["failed_relations"] == {"unique_m_id": "m"}  # the model it checks


def test_the_key_is_the_first_unique_column_of_the_models_column_checks():
    from peerlake.orchestration.dbt_failures import _unique_key

    uid, checks = _test("m_column_checks", "column_checks")
    checks["test_metadata"]["kwargs"] = {"unique": ["m_id", "paper_id"], "not_null": ["status"]}
    manifest = {"nodes": {MODEL: MANIFEST["nodes"][MODEL], uid: checks}}
    assert _unique_key(manifest, MODEL) == "m_id"
    checks["test_metadata"]["kwargs"] = {"not_null": ["status"]}
    assert _unique_key(manifest, MODEL) is None  # no stated key: the rows show their first columns
