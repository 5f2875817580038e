"""`peerlake study new --judges`: the judges a study names, written into its file."""

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.study import study_app
from reviewing.study import parse_study


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
