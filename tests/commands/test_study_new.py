"""`peerlake study new --judges`: the judges a study names, written into its file."""

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.study import study_app
from peerlake.studies import parse_study


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    app = typer.Typer()
    app.add_typer(study_app, name="study")
    app.command("noop")(lambda: None)
    return lambda *args: CliRunner().invoke(app, ["study", *args])


def test_judges_all_or_a_list_go_into_the_file(invoke, tmp_path):
    assert invoke("new", "everything", "--ids", "a", "--judges", "all").exit_code == 0
    text = (tmp_path / "lake" / "studies" / "everything.toml").read_text()
    assert parse_study("everything", text).judges == ("depth", "novelty", "flaws", "constructiveness")
    assert invoke("new", "two", "--ids", "a", "--judges", "flaws, depth").exit_code == 0
    text = (tmp_path / "lake" / "studies" / "two.toml").read_text()
    assert parse_study("two", text).judges == ("depth", "flaws")


def test_an_unknown_judge_is_refused_and_nothing_is_written(invoke, tmp_path):
    result = invoke("new", "bad", "--ids", "a", "--judges", "depth,taste")
    assert result.exit_code != 0 and "unknown: taste" in result.output
    assert not (tmp_path / "lake" / "studies" / "bad.toml").exists()


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", "/tmp/x", "x\n", "x.y", ""])
def test_a_study_name_that_is_no_plain_name_is_one_line_exit_2_and_writes_nothing(invoke, tmp_path, name):
    result = invoke("new", name, "--ids", "a")
    assert result.exit_code == 2 and not isinstance(result.exception, ValueError)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: study name {name!r}: use 1-63 lowercase letters")
    assert not list(tmp_path.rglob("*.toml"))


@pytest.mark.parametrize("argv", [["study", "show", "../../x"], ["run", "../../x"], ["run", "a/b", "--dry-run"]])
def test_every_command_that_reads_a_study_file_checks_its_name(tmp_path, monkeypatch, argv):
    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2 and "error: study name" in result.output and "Traceback" not in result.output


def test_a_report_page_is_never_written_outside_the_reports_folder(tmp_path, monkeypatch):
    import duckdb
    import pandas as pd

    from peerlake.cli import app

    lake = tmp_path / "lake"
    lake.mkdir()
    monkeypatch.setenv("PEERLAKE_HOME", str(lake))
    with duckdb.connect(str(lake / "peerlake.duckdb")) as con:
        con.register("df", pd.DataFrame({"study_id": ["../../evil"], "reviewer_config": ["c"], "prompt_template": ["t"],
                                         "model": ["m"], "paper_id": ["A"], "overall_score": [6.0],
                                         "is_parsed": [True]}))
        con.execute("create table fct_ai_review_scores as select * from df")
    result = CliRunner().invoke(app, ["report", "--study", "../../evil"])
    assert result.exit_code == 2 and "error: study name '../../evil'" in result.output
    assert not list(tmp_path.rglob("*.html"))
    # every study in the marts (a study id comes from an event, which may be forged): skipped, said
    result = CliRunner().invoke(app, ["report"])
    assert "no report page for study '../../evil'" in " ".join(result.output.split()), result.output
    assert not list(tmp_path.rglob("*.html"))
