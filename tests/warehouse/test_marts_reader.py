"""The published marts read through warehouse.marts_reader, on a tiny DuckDB file made here: rows as dicts,
and each reason it cannot answer said with what to run."""

import duckdb
import pytest

from peerlake.warehouse import marts_reader
from peerlake.warehouse.marts_reader import CannotOpen, MartsUnreadable, NoMart, NoMarts


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "peerlake.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("create table cost_by_model as select * from (values ('a', 1.5), ('b', null)) t(model, cost_usd)")
        con.execute("create view stg_calls as select 1 as x")
    return path


def test_rows_are_dicts_by_column_name_with_parameters(db):
    assert marts_reader.rows(db, "select model, cost_usd from cost_by_model order by model") == \
        [{"model": "a", "cost_usd": 1.5}, {"model": "b", "cost_usd": None}]
    assert marts_reader.rows(db, "select model from cost_by_model where model = ?", ["b"]) == [{"model": "b"}]
    assert marts_reader.rows(db, "select count(*) as n from cost_by_model where model = $m", {"m": "a"}) == [{"n": 1}]


def test_one_open_file_answers_several_queries_and_lists_its_tables_not_views(db):
    with marts_reader.published(db) as marts:
        assert marts.tables() == {"cost_by_model"}
        assert marts.rows("select count(*) as n from cost_by_model") == [{"n": 2}]


def test_no_file_says_no_published_marts_and_what_to_run(tmp_path):
    missing = tmp_path / "nothing" / "peerlake.duckdb"
    with pytest.raises(NoMarts) as exc:
        marts_reader.rows(missing, "select 1")
    assert str(exc.value).startswith(f"No published marts yet (no database at {missing}): run `peerlake build`")
    assert "make demo" in str(exc.value)
    assert not missing.parent.exists()  # read-only: the reader made nothing


def test_a_missing_table_is_named_with_what_to_run(db):
    with pytest.raises(NoMart) as exc:
        marts_reader.rows(db, "select * from reliability_repeatability")
    assert str(exc.value) == f"{db} has no reliability_repeatability table: run `peerlake build`"


def test_a_missing_column_is_an_older_build(db):
    with pytest.raises(NoMart) as exc:
        marts_reader.rows(db, "select ppi_var_human from cost_by_model")
    message = str(exc.value)
    assert message.startswith(f"{db} holds marts of an older build (Binder Error: ")
    assert "ppi_var_human" in message and message.endswith("run `peerlake build`")


def test_a_file_that_cannot_be_opened_read_only_says_so(tmp_path):
    bad = tmp_path / "peerlake.duckdb"
    bad.write_bytes(b"not a database" * 1000)
    with pytest.raises(CannotOpen) as exc:
        marts_reader.rows(bad, "select 1")
    assert str(exc.value).startswith(f"cannot open {bad} read-only: ") and "retry" in str(exc.value)
    assert isinstance(exc.value, MartsUnreadable)
