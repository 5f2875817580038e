"""`peerlake query` runs read statements over the published marts and nothing else: no file written,
no file outside the lake's segments read, no extension, no setting changed (issue 23, item 2).

The lake here is made by hand, shaped as dbt leaves it: a mart table and a staging view over the
committed segments (read_parquet of the segments folder), published and candidate files alike."""

import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from peerlake.cli import app

READ_ONLY = "`peerlake query` runs read statements only (SELECT)"


@pytest.fixture
def published(lake, tmp_path):
    seg = lake.segments_dir / "event_type=llm_call"
    seg.mkdir(parents=True)
    pq.write_table(pa.table({"llm_call_id": ["c1", "c2"], "cost_usd": [0.5, 0.25]}), seg / "seg-0-2.parquet")
    lake.manifests_dir.mkdir(parents=True, exist_ok=True)
    (lake.manifests_dir / "000000000001.json").write_text(json.dumps(
        {"segments": [{"path": "events/segments/event_type=llm_call/seg-0-2.parquet"}]}))
    for path, mart in ((lake.duckdb_path, "cost_by_model"), (lake.candidate_duckdb_path, "candidate_only")):
        path.parent.mkdir(parents=True, exist_ok=True)
        with duckdb.connect(str(path)) as con:
            con.execute(f"create table {mart} as select 'm' as model, 3 as n_calls")
            # as the staging views read: the segments the manifests list
            con.execute(f"""create view stg_events__llm_calls as
                select * exclude (filename) from read_parquet('{seg}/*.parquet', filename=true)
                where parse_filename(filename) in (select parse_filename(unnest(
                    json_extract_string(content, '$.segments[*].path')))
                    from read_text('{lake.manifests_dir}/*.json'))""")
    (tmp_path / "outside.txt").write_text("not for queries\n")
    pq.write_table(pa.table({"secret": ["outside-parquet"]}), tmp_path / "outside.parquet")
    return lake


def query(*args):
    result = CliRunner().invoke(app, ["query", *args])
    return result.exit_code, result.output


def said(output: str) -> str:
    return " ".join(output.split())


def test_select_on_a_mart_and_on_a_staging_view_over_the_segments_still_works(published):
    """A guard, not a regression: the locked connection still reads its views' segments."""
    code, out = query("-f", "json", "select * from cost_by_model")
    assert code == 0 and json.loads(out) == [{"model": "m", "n_calls": 3}]
    code, out = query("-f", "json", "with c as (select * from stg_events__llm_calls) "
                                    "select llm_call_id, cost_usd from c order by 1")
    assert code == 0 and json.loads(out) == [{"llm_call_id": "c1", "cost_usd": 0.5},
                                             {"llm_call_id": "c2", "cost_usd": 0.25}]
    code, out = query("-f", "csv", "select 1 as a; from cost_by_model select n_calls")  # the last one's rows
    assert code == 0 and out.split() == ["n_calls", "3"]


@pytest.mark.parametrize(("sql", "why"), [
    ("copy (select * from cost_by_model) to '{out}'", "reads or writes files"),
    ("copy cost_by_model from '{outside}'", "reads or writes files"),
    ("export database '{out}'", "writes files"),
    ("install httpfs", "installs or loads an extension"),
    ("load httpfs", "installs or loads an extension"),
    ("attach '{out}' as other", "opens another database"),
    ("set enable_external_access = true", "changes a setting"),
    ("reset lock_configuration", "changes a setting"),
    ("create table t as select 1", "changes the database"),
    ("create temp table t as select 1", "changes the database"),
    ("insert into cost_by_model values ('x', 1)", "changes the database"),
    ("update cost_by_model set n_calls = 0", "changes the database"),
    ("delete from cost_by_model", "changes the database"),
    ("drop table cost_by_model", "changes the database"),
    ("pragma version", "changes settings or runs a command"),
    ("call pragma_version()", "runs a procedure"),
    ("checkpoint", "runs a procedure"),
    ("explain analyze copy (select 1) to '{out}'", "can run the statement it explains"),
])
def test_every_statement_but_select_is_refused_in_one_line(published, tmp_path, sql, why):
    out_file = tmp_path / "out.csv"
    code, out = query(sql.format(out=out_file, outside=tmp_path / "outside.txt"))
    assert code == 1 and "Traceback" not in out
    line = said(out)
    assert line.startswith("refused: ") and why in line and READ_ONLY in line
    assert sql.split()[0] in line  # names the statement
    assert not out_file.exists()
    with duckdb.connect(str(published.duckdb_path), read_only=True) as con:
        assert con.execute("select * from cost_by_model").fetchall() == [("m", 3)]


def test_copy_names_the_way_rows_leave(published):
    code, out = query("copy cost_by_model to 'x.csv'")
    assert code == 1
    assert said(out) == (f"refused: copy cost_by_model to 'x.csv' reads or writes files; {READ_ONLY}; "
                         "use --format csv > file")


def test_no_forged_segment_is_written_into_the_lake(published):
    forged = published.segments_dir / "event_type=llm_call" / "forged.parquet"
    code, out = query(f"copy (select 'c9' as llm_call_id, 5904.0 as cost_usd) to '{forged}'")
    assert code == 1 and "refused" in out and not forged.exists()
    code, out = query("-f", "json", "select count(*) as n from stg_events__llm_calls")
    assert code == 0 and json.loads(out) == [{"n": 2}]


@pytest.mark.parametrize("select", [
    "select * from read_text('{outside}')",
    "select * from read_csv('{outside}')",
    "select * from read_parquet('{parquet}')",
    "select * from read_blob('{outside}')",
    "select * from glob('{tmp}/*')",
    "select * from sniff_csv('{outside}')",
    "select * from read_text('{segments}/../../../outside.txt')",  # out of the allowed folder by ..
    "select * from read_text('/etc/hostname')",
])
def test_a_select_cannot_read_a_file_outside_the_lakes_segments(published, tmp_path, select):
    code, out = query(select.format(outside=tmp_path / "outside.txt", parquet=tmp_path / "outside.parquet",
                                    tmp=tmp_path, segments=published.segments_dir))
    assert code == 1 and "Traceback" not in out
    assert "not for queries" not in out and "outside-parquet" not in out and "outside.txt " not in out
    assert "PermissionException" in out and "reads the marts and the lake's segments" in said(out)


def test_on_a_remote_lake_the_views_read_its_segments_and_nothing_else(lake, monkeypatch, s3_lake_url, s3_server):
    from peerlake.warehouse import duckdb_s3
    from peerlake.warehouse.stores.s3 import split_url

    bucket, prefix = split_url(s3_lake_url)
    s3, buf = s3_server.client(), pa.BufferOutputStream()
    pq.write_table(pa.table({"llm_call_id": ["r1"]}), buf)
    s3.put_object(Bucket=bucket, Key=f"{prefix}events/segments/event_type=llm_call/seg-0-1.parquet",
                  Body=buf.getvalue().to_pybytes())
    s3.put_object(Bucket=bucket, Key=f"{prefix}private.txt", Body=b"not for queries")
    monkeypatch.setenv("PEERLAKE_LAKE_URL", s3_lake_url)
    with duckdb_s3.connect(lake.duckdb_path) as con:
        con.execute("create view stg_events__llm_calls as select * from "
                    f"read_parquet('{s3_lake_url}/events/segments/event_type=llm_call/*.parquet')")
    code, out = query("-f", "json", "select llm_call_id from stg_events__llm_calls")
    assert code == 0 and json.loads(out) == [{"llm_call_id": "r1"}]
    for sql in (f"select * from read_text('{s3_lake_url}/private.txt')",
                f"select * from read_text('{s3_lake_url}/events/segments/../private.txt')"):
        code, out = query(sql)
        assert code == 1 and "PermissionException" in out and "not for queries" not in out


def test_one_bad_statement_among_several_runs_none(published, tmp_path):
    out_file = tmp_path / "out.csv"
    code, out = query("-f", "json", f"select 41 as first; copy cost_by_model to '{out_file}'; "
                                    "set enable_external_access = true; select 43 as last")
    assert code == 1 and not out_file.exists() and "41" not in out and "43" not in out
    lines = [said(line) for line in out.strip().splitlines()]
    assert len(lines) == 2
    assert lines[0].startswith("refused (statement 2 of 4): copy cost_by_model to")
    assert lines[1].startswith("refused (statement 3 of 4): set enable_external_access = true changes a setting")


def test_the_candidate_is_locked_the_same_way(published, tmp_path):
    code, out = query("--candidate", "-f", "json", "select * from candidate_only")
    assert code == 0 and json.loads(out) == [{"model": "m", "n_calls": 3}]
    out_file = tmp_path / "out.csv"
    code, out = query("--candidate", f"copy candidate_only to '{out_file}'")
    assert code == 1 and said(out).startswith("refused: copy candidate_only") and not out_file.exists()
    code, out = query("--candidate", f"select * from read_text('{tmp_path / 'outside.txt'}')")
    assert code == 1 and "not for queries" not in out and "PermissionException" in out


def test_a_syntax_error_is_one_line_and_an_empty_query_says_what_to_give(published):
    code, out = query("selec * from cost_by_model")
    assert code == 1 and "ParserException" in out and "Traceback" not in out
    code, out = query("  ;  ")
    assert code == 1 and "refused: no statement to run" in said(out)
