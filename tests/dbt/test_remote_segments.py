"""dbt and Python readers on a lake whose committed segments live on S3-API object storage (the local
moto server): the same events give the same rows whether read from the local folder or the bucket.

The segments are sealed by today's local EventLog, then uploaded with their manifests under
`<lake url>/events/`, the committed layout of a remote lake (see warehouse/duckdb_s3.py). The remote
build's PEERLAKE_HOME is an empty folder, so it can only succeed by reading the bucket. Both lakes also
hold a forged segment no manifest lists, which neither build may read."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peerlake.warehouse import EventLog, Lake, duckdb_s3, settings
from peerlake.warehouse.events import PriceTableRecorded
from tests.dbt.test_cost_marts import NEW_DAY, OLD_DAY, TABLE, _call

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
SELECT = "+cost_by_model"  # stg_events__llm_calls, stg_events__price_tables, int_call_costs, fct_llm_calls
STAGING_SQL = "select * from stg_events__llm_calls order by llm_call_id"
MART_SQL = "select * from cost_by_model order by all"


def _dbt_run(work: Path, home: Path, db: Path, segments_url: str | None,
             extra_env: dict[str, str]) -> subprocess.Popen:
    """Start `dbt run` of SELECT (a subprocess, as the orchestrator runs it); _ok() waits for it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PEERLAKE_DUCKDB_PATH", "PEERLAKE_SEGMENTS_URL", "PEERLAKE_LAKE_URL")}
    env.update(extra_env, PEERLAKE_HOME=str(home), PEERLAKE_DUCKDB_PATH=str(db))
    if segments_url:
        env["PEERLAKE_SEGMENTS_URL"] = segments_url
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("dbt")), "run", "--select", SELECT, "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR), "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ok(proc: subprocess.Popen) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, f"dbt run failed:\n{out[-4000:]}\n{err[-2000:]}"


def _seal(log: EventLog, batches: list[list]) -> None:
    for batch in batches:
        log.append_many(batch)
        log.seal()
    log.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory, s3_server):
    root = tmp_path_factory.mktemp("remote_segments")
    lake = Lake(root / "lake")
    calls = [_call("c1", OLD_DAY, study="S1", cost=0.049), _call("c2", NEW_DAY, study="S1", cost=0.0245),
             _call("c3", NEW_DAY, study="S1", status="error"),
             _call("c4", NEW_DAY, study="S2", model="mystery", cost_status="unknown_model")]
    table = PriceTableRecorded(occurred_at=OLD_DAY, version=TABLE.version, source_sha256="0" * 64,
                               prices_json=json.dumps(TABLE.rows()))
    # a second paid answer to c2, sealed after it: llm_call_duplicated
    batches = [[table, *calls], [_call("c2", NEW_DAY, study="S1", cost=0.0245)]]
    _seal(EventLog(lake), batches)
    _forge(lake)

    bucket = f"remote-segments-{os.getpid()}"
    client = s3_server.client()
    client.create_bucket(Bucket=bucket)
    files = sorted(p for p in lake.segments_dir.rglob("*.parquet"))
    for p in files:
        client.put_object(Bucket=bucket, Key=f"lake/events/segments/{p.relative_to(lake.segments_dir).as_posix()}",
                          Body=p.read_bytes())
    for p in lake.manifests_dir.glob("*.json"):  # named as a remote lake names them: by seq
        client.put_object(Bucket=bucket, Key=f"lake/events/manifests/{json.loads(p.read_bytes())['seq']:012d}.json",
                          Body=p.read_bytes())
    url = f"s3://{bucket}/lake"

    # The two builds share no file, so they run side by side (each spends most of its ~10 s parsing).
    local_db = root / "local" / "peerlake.duckdb"
    local = _dbt_run(root / "local", lake.root, local_db, None, {})
    empty_home = root / "remote_home"
    empty_home.mkdir()
    remote_db = root / "remote" / "peerlake.duckdb"
    remote = _dbt_run(root / "remote", empty_home, remote_db, f"{url}/events/segments", s3_server.env)
    _ok(local)
    _ok(remote)
    return lake, url, local_db, remote_db, batches


FORGED = "forged.parquet"


def _forge(lake: Lake) -> None:
    """A copy of a sealed llm_call segment with new event ids and $123 a call, under a name of its own."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = next(p for p in lake.segments_dir.glob("event_type=llm_call/*.parquet") if "schema" not in p.name)
    table = pq.read_table(src)
    n = table.num_rows
    table = table.set_column(table.schema.get_field_index("event_id"), "event_id",
                             pa.array([f"FORGED{i:020d}" for i in range(n)]))
    table = table.set_column(table.schema.get_field_index("cost_usd"), "cost_usd",
                             pa.array([123.0] * n, type=table.schema.field("cost_usd").type))
    pq.write_table(table, src.with_name(FORGED))


@pytest.fixture
def remote_env(built, s3_server, monkeypatch):
    """This process configured for the remote lake: PEERLAKE_LAKE_URL and the object store's variables."""
    for k, v in s3_server.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PEERLAKE_LAKE_URL", built[1])
    return built


def _rows(db: Path, sql: str) -> list[tuple]:
    with duckdb_s3.connect(db, read_only=True) as con:
        return con.execute(sql).fetchall()


def test_the_bucket_build_equals_the_local_build_in_staging_and_mart(remote_env):
    lake, url, local_db, remote_db, _ = remote_env
    staged_local, staged_remote = _rows(local_db, STAGING_SQL), _rows(remote_db, STAGING_SQL)
    assert len(staged_local) == 5 and staged_remote == staged_local  # c1-c4 and the paid duplicate
    mart_local, mart_remote = _rows(local_db, MART_SQL), _rows(remote_db, MART_SQL)
    assert mart_local and mart_remote == mart_local
    assert _rows(remote_db, "select count(*) from fct_llm_calls") == [(5,)]  # the duplicate is paid: counted
    # the remote views read the bucket, the local ones the lake folder
    sql = "select sql from duckdb_views() where view_name = 'stg_events__llm_calls'"
    assert f"{url}/events/segments/event_type=llm_call" in _rows(remote_db, sql)[0][0]
    assert str(lake.segments_dir) in _rows(local_db, sql)[0][0]


def test_neither_build_reads_a_segment_no_manifest_commits(remote_env):
    lake, _, local_db, remote_db, batches = remote_env
    glob = f"read_parquet('{lake.segment_glob('llm_call')}')"
    with duckdb_s3.connect(lake=lake) as con:  # the forged rows are there for a plain glob to find
        assert con.execute(f"select count(*) from {glob} where event_id like 'FORGED%'").fetchone()[0] > 0
    sealed_cost = sum(e.cost_usd or 0 for b in batches for e in b if e.event_type == "llm_call")
    for db in (local_db, remote_db):
        assert _rows(db, "select count(*) from fct_llm_calls where llm_call_id like 'FORGED%'") == [(0,)]
        (cost,) = _rows(db, "select sum(cost_usd) from stg_events__llm_calls")[0]
        assert cost == pytest.approx(sealed_cost)  # the forged $123 calls count nowhere
        assert "filename" not in [r[0] for r in _rows(db, "describe select * from stg_events__llm_calls")]
    # a partition with nothing but its committed schema segment still gives every column, and no other
    from peerlake.warehouse.events import EVENT_TYPES, arrow_schema

    cls = EVENT_TYPES["cost_cap_reached"]
    with duckdb_s3.connect() as con:
        cols = [r[0] for r in con.execute(f"describe select * from {duckdb_s3.committed_segments(cls.event_type)}")
                .fetchall()]
    assert sorted(cols) == sorted([*arrow_schema(cls).names, "event_type"])


def test_a_python_reader_reads_the_bucket_through_the_helper(remote_env):
    lake, url, _, remote_db, _ = remote_env
    assert duckdb_s3.segment_glob("llm_call") == f"{url}/events/segments/event_type=llm_call/*.parquet"
    sql = "select event_id, request_key, status from {} order by all"
    with duckdb_s3.connect() as con:
        remote = con.execute(sql.format(duckdb_s3.committed_segments("llm_call"))).fetchall()
    with duckdb_s3.connect(lake=lake) as con:  # an explicit local lake: plain DuckDB on the folder
        assert not con.filesystem_is_registered("s3")
        local = con.execute(sql.format(duckdb_s3.committed_segments("llm_call", lake))).fetchall()
    assert len(remote) == 4 and remote == local
    # the same rows as dbt's source (the two build one expression): the forged segment in neither
    staged = _rows(remote_db, "select llm_call_id from stg_events__llm_calls where not is_duplicate_success")
    assert sorted(r[0] for r in remote) == sorted(r[0] for r in staged)


def test_export_lake_env_points_dbt_at_the_segments(built, tmp_path, monkeypatch):
    for name in ("PEERLAKE_SEGMENTS_URL", "PEERLAKE_DUCKDB_PATH", "DAGSTER_HOME", "DBT_TARGET_PATH", "PATH"):
        monkeypatch.setenv(name, os.environ.get(name, "unset"))  # export writes os.environ: restore it after
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path))
    monkeypatch.setenv("PEERLAKE_LAKE_URL", built[1] + "/")
    assert settings.export_lake_env()["PEERLAKE_SEGMENTS_URL"] == f"{built[1]}/events/segments"
    monkeypatch.delenv("PEERLAKE_LAKE_URL")
    assert "PEERLAKE_SEGMENTS_URL" not in settings.export_lake_env()
    assert "PEERLAKE_SEGMENTS_URL" not in os.environ  # dbt falls back to <PEERLAKE_HOME>/events/segments


def test_an_unreadable_bucket_stops_dbt_at_connect_naming_the_settings(s3_server, monkeypatch):
    import duckdb
    from dbt.adapters.duckdb.plugins import BasePlugin

    for k, v in s3_server.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PEERLAKE_SEGMENTS_URL", "s3://no-such-lake-bucket/x/events/segments")
    # loaded the way dbt-duckdb loads the profile's plugin; it reads the segments URL when dbt connects
    plugin = BasePlugin.create("peerlake.warehouse.duckdb_s3")
    con = duckdb.connect()
    with pytest.raises(duckdb_s3.LakeUnreachable, match=r"bucket 'no-such-lake-bucket' does not exist at http.*"
                       r"AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID"):
        plugin.configure_connection(con)
    assert not con.filesystem_is_registered("s3")
    # without the filesystem a remote path is not readable at all (DuckDB would try to download httpfs)
    con.execute("set autoinstall_known_extensions = false")
    with pytest.raises(duckdb.Error, match="httpfs"):
        con.execute("select * from read_parquet('s3://no-such-lake-bucket/x.parquet')")


def test_segments_committed_by_the_remote_event_log_read_like_the_local_ones(built, s3_lake_url, tmp_path,
                                                                           monkeypatch):
    """End to end through the event log on a lake URL (warehouse/commit.py): what it commits under
    `<lake url>/events/segments/` is what a reader of the local lake's segments sees."""
    lake, _, _, _, batches = built
    remote = Lake(tmp_path / "machine", s3_lake_url)
    log = EventLog(remote)
    assert log.chain is not None  # numbered manifests in the bucket
    _seal(log, batches)
    monkeypatch.setenv("PEERLAKE_LAKE_URL", s3_lake_url)
    calls_sql = "select event_id, request_key, status, cost_usd from {} order by all"
    for etype, n, sql in (("llm_call", 4, calls_sql), ("llm_call_duplicated", 1, calls_sql),
                          ("price_table_recorded", 1, "select event_id, version from {} order by all")):
        with duckdb_s3.connect() as con:
            got = con.execute(sql.format(duckdb_s3.committed_segments(etype))).fetchall()
        with duckdb_s3.connect(lake=lake) as con:
            want = con.execute(sql.format(duckdb_s3.committed_segments(etype, lake))).fetchall()
        assert len(got) == n and got == want, etype
