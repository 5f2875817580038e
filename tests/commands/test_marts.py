"""`peerlake marts`: the published marts with description, key, rows and gate, read from a small
published file made for the test (no dbt build); nothing published is said with what to run."""

import json

import duckdb
from typer.testing import CliRunner

from peerlake.cli import app
from peerlake.commands.marts import first_sentence


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_with_nothing_published_it_says_so_and_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    result = CliRunner().invoke(app, ["marts"])
    assert result.exit_code == 1
    assert "No published marts yet" in _flat(result.output) and "make demo" in result.output


def test_the_published_marts_with_key_rows_gate_and_the_last_builds_verdict(tmp_path, monkeypatch, capsys):
    from peerlake.commands.marts import published_marts
    from peerlake.dbt_project import PROJECT_DIR
    from peerlake.expectations.gates import GATES
    from peerlake.warehouse import Lake

    lake_dir = tmp_path / "lake"
    (lake_dir / "candidate").mkdir(parents=True)
    monkeypatch.setenv("PEERLAKE_HOME", str(lake_dir))
    with duckdb.connect(str(lake_dir / "peerlake.duckdb")) as con:
        con.execute("create table cost_by_model as select range as cost_group_id from range(3)")
        con.execute("create table text_overlap as select range as text_overlap_id from range(2)")
        con.execute("create table fct_llm_calls as select range as llm_call_id from range(5)")
        con.execute("create table stg_not_a_mart as select 1 as x")
        con.execute("create view reliability_validity as select 1 as validity_id")  # a view is not published
    # The last build failed the GX gate of fct_llm_calls (suite llm_calls) and no other.
    (lake_dir / "candidate" / "status.json").write_text(json.dumps(
        {"state": "failed", "started_at": "2026-01-01T00:00:00+00:00", "failed_gates": {"gx_llm_calls": "FAIL"}}))
    # Every mart has a GX suite today; one without is said to have its dbt tests only.
    monkeypatch.setattr("peerlake.expectations.gates.GATES", {s: m for s, m in GATES.items() if m != "text_overlap"})
    rows = {r["mart"]: r for r in published_marts(Lake.default(), PROJECT_DIR)}
    assert sorted(rows) == ["cost_by_model", "fct_llm_calls", "text_overlap"]
    assert rows["cost_by_model"]["key"] == "cost_group_id" and rows["cost_by_model"]["rows"] == 3
    assert rows["cost_by_model"]["what it holds"] == \
        "Calls, tokens and cost per provider / model / prompt_template / prompt_hash."
    assert rows["cost_by_model"]["gate"] == "GX cost_by_model"
    assert rows["text_overlap"]["gate"] == "dbt tests only"
    assert rows["fct_llm_calls"]["last build"].startswith("FAILED (gx_llm_calls)")
    assert rows["cost_by_model"]["last build"].startswith("passed when published; the last build failed")
    result = CliRunner().invoke(app, ["marts"])
    assert result.exit_code == 0 and "cost_group_id" in result.output and "text_overlap_id" in result.output


def test_a_dbt_test_failure_is_put_on_the_longest_mart_name_it_holds():
    from peerlake.commands.marts import _failed_marts

    failed = _failed_marts({"unique_quality_depth_aspects_quality_depth_aspect_id": "x"},
                           ["quality_depth", "quality_depth_aspects"])
    assert failed == {"quality_depth_aspects": ["unique_quality_depth_aspects_quality_depth_aspect_id"]}


def test_a_dbt_test_failure_is_put_on_the_model_noted_beside_it():
    from peerlake.commands.marts import _failed_marts

    # a singular test's name need not hold its model's name; the model dbt attached it to is noted
    failed = _failed_marts({"assert_depth_sums": "x"}, ["quality_depth", "quality_depth_aspects"],
                           {"assert_depth_sums": "quality_depth"})
    assert failed == {"quality_depth": ["assert_depth_sums"]}


def test_first_sentence_does_not_end_at_an_abbreviation():
    assert first_sentence("Per study, e.g. demo. More text.") == "Per study, e.g. demo."
    assert first_sentence("One line\n  wrapped. Two") == "One line wrapped."
    assert first_sentence("Per (study, venue_year incl. 'all'): x. y") == "Per (study, venue_year incl. 'all'): x."


def test_the_marts_are_one_table_with_the_marts_that_have_rows_first(tmp_path, monkeypatch):
    lake_dir = tmp_path / "lake"
    lake_dir.mkdir()
    monkeypatch.setenv("PEERLAKE_HOME", str(lake_dir))
    monkeypatch.setenv("COLUMNS", "120")
    with duckdb.connect(str(lake_dir / "peerlake.duckdb")) as con:
        con.execute("create table cost_by_model as select range as cost_group_id from range(0)")
        con.execute("create table text_overlap as select range as text_overlap_id from range(0)")
        con.execute("create table fct_llm_calls as select range as llm_call_id from range(5)")
    result = CliRunner().invoke(app, ["marts"])
    assert result.exit_code == 0, result.output
    assert "row 1" not in result.output  # not one card per mart
    order = [m for m in ("fct_llm_calls", "cost_by_model", "text_overlap") if m in result.output]
    assert order == ["fct_llm_calls", "cost_by_model", "text_overlap"]
    assert result.output.index("fct_llm_calls") < result.output.index("cost_by_model") < \
        result.output.index("text_overlap")
    assert "2 of 3 marts have no rows" in _flat(result.output)
