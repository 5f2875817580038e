"""Build snapshots: the published marts of the last N builds in content-defined Parquet chunks, so an
unchanged mart costs no new file and appended rows rewrite only the tail."""

import logging

import duckdb
import pytest

from peerlake.warehouse import builds
from peerlake.warehouse.publish import PUBLISHED, candidate_status
from tests.warehouse.builds_support import publish_sql

ROWS = 20_000  # ~5 chunks at one boundary per 4,096 rows on average


def _calls(n: int, start: int = 0) -> str:
    """Rows keyed like fct_llm_calls (increasing ids: new events sort last)."""
    return (f"select 'call-' || lpad(i::varchar, 8, '0') as llm_call_id, i % 7 as sample_index, "
            f"i / 3.0 as cost_usd, 'model-' || (i % 3) as model from range({start}, {start + n}) t(i)")


def _chunk_files(lake) -> set[str]:
    return {p.stem for p in builds.chunks_dir(lake).glob("*.parquet")}


def test_an_unchanged_mart_shares_every_chunk(lake):
    publish_sql(lake, f"create table fct_llm_calls as {_calls(ROWS)}; create table cost_by_study as select 1 as n")
    first = builds.keep_build(lake)
    publish_sql(lake, "create table int_scratch as select 1 as x")  # a new build; the marts are unchanged
    second = builds.keep_build(lake)
    assert (first["build_id"], second["build_id"]) == ("1", "2")
    chunks = first["marts"]["fct_llm_calls"]["chunks"]
    assert len(chunks) > 2 and first["marts"]["fct_llm_calls"]["rows"] == ROWS
    assert second["marts"] == first["marts"] and "int_scratch" not in second["marts"]
    assert second["new_chunks"] == 0
    assert _chunk_files(lake) == {c for m in first["marts"].values() for c in m["chunks"]}


def test_appended_rows_rewrite_only_the_tail_chunks(lake):
    publish_sql(lake, f"create table fct_llm_calls as {_calls(ROWS)}")
    old = builds.keep_build(lake)["marts"]["fct_llm_calls"]["chunks"]
    publish_sql(lake, f"insert into fct_llm_calls {_calls(500, start=ROWS)}")
    record = builds.keep_build(lake)
    new = record["marts"]["fct_llm_calls"]["chunks"]
    assert new[:len(old) - 1] == old[:-1]  # every chunk but the last is the old build's
    assert record["new_chunks"] == len(new) - (len(old) - 1) <= 2
    assert record["marts"]["fct_llm_calls"]["rows"] == ROWS + 500


def test_a_snapshot_reads_back_as_the_published_mart(lake):
    publish_sql(lake, f"""create table fct_llm_calls as {_calls(9000)};
        create table judge_cards as select 'a' as judge_card_id, null as other, 1.5::decimal(8, 3) as estimate,
               [1, 2] as items, timestamptz '2026-01-02 03:04:05+00' as recorded_at;
        create table quality_reviews as select 'x' as quality_review_id, 1.0 as doa where false""")
    record = builds.keep_build(lake)
    columns = [["quality_review_id", "VARCHAR"], ["doa", "DECIMAL(2,1)"]]
    assert record["marts"]["quality_reviews"] == {"columns": columns, "key": ["quality_review_id"], "chunks": [],
                                                  "rows": 0}
    with duckdb.connect(str(lake.duckdb_path), read_only=True) as con:
        for name, mart in record["marts"].items():
            kept = con.execute(builds.mart_sql(lake, mart))
            assert [(d[0], str(d[1])) for d in kept.description] == \
                [(d[0], str(d[1])) for d in con.execute(f"select * from {name}").description]
            for a, b in ((builds.mart_sql(lake, mart), f"select * from {name}"),
                         (f"select * from {name}", builds.mart_sql(lake, mart))):
                assert con.execute(f"select count(*) from (({a}) except all ({b}))").fetchone()[0] == 0


def test_prune_keeps_n_builds_and_deletes_unreferenced_chunks(lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_KEEP_BUILDS", "2")
    publish_sql(lake, f"create table fct_llm_calls as {_calls(ROWS)}")
    builds.keep_build(lake)
    for i in range(3):  # each build changes every row: no chunk is shared with an earlier build
        publish_sql(lake, f"update fct_llm_calls set cost_usd = cost_usd + {i + 1}")
        last = builds.keep_build(lake)
    kept = builds.records(lake)
    assert [r["build_id"] for r in kept] == ["3", "4"] and last["records_removed"] == 1
    assert _chunk_files(lake) == {c for r in kept for c in r["marts"]["fct_llm_calls"]["chunks"]}
    assert len(_chunk_files(lake)) == 2 * len(last["marts"]["fct_llm_calls"]["chunks"])


def test_keep_builds_zero_keeps_nothing(lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_KEEP_BUILDS", "0")
    publish_sql(lake, f"create table fct_llm_calls as {_calls(10)}")
    assert builds.keep_build(lake) is None
    assert not builds.builds_dir(lake).exists()


def test_a_failing_snapshot_does_not_fail_thepublish_sql(lake, caplog):
    publish_sql(lake, f"create table fct_llm_calls as {_calls(10)}")
    builds.builds_dir(lake).write_text("a file where the builds folder should be")
    publish_sql(lake, "update fct_llm_calls set cost_usd = 42")
    with caplog.at_level(logging.WARNING, logger="peerlake.warehouse.builds"):
        assert builds.keep_build(lake) is None
    assert "build snapshot not kept (the publish stands)" in caplog.text
    assert candidate_status(lake)["state"] == PUBLISHED
    with duckdb.connect(str(lake.duckdb_path), read_only=True) as con:
        assert con.execute("select distinct cost_usd from fct_llm_calls").fetchall() == [(42,)]


def test_prev_is_the_build_before_the_published_one(lake):
    for i in range(3):
        publish_sql(lake, f"create or replace table fct_llm_calls as {_calls(10 + i)}")
        builds.keep_build(lake)
    assert builds.resolve(lake, "prev")["build_id"] == "2"
    assert builds.resolve(lake, "-2")["build_id"] == "1"
    assert builds.resolve(lake, "3")["build_id"] == "3"
    publish_sql(lake, "create table int_scratch as select 1 as x")  # published without a snapshot
    assert builds.resolve(lake, "prev")["build_id"] == "3"
    with pytest.raises(builds.BuildUnknown, match=r"no kept build '9'; kept builds: 1, 2, 3"):
        builds.resolve(lake, "9")
    with pytest.raises(builds.BuildUnknown, match="no build -4: 3 kept before the published one"):
        builds.resolve(lake, "-4")
