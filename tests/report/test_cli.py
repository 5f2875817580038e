import duckdb
import pandas as pd
import typer
from typer.testing import CliRunner

from peerlake.commands.report import register


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # typer needs two commands to keep the subcommand name
    return app


def test_report_command_names_a_missing_warehouse_and_writes_the_page(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path))
    missing = CliRunner().invoke(_app(), ["report"])
    assert missing.exit_code == 1 and "run `peerlake demo` or `peerlake run STUDY` first" in missing.output
    with duckdb.connect(str(tmp_path / "peerlake.duckdb")) as con:
        con.register("df", pd.DataFrame({"study_id": ["s1", "s2"], "reviewer_config": ["c", "c"],
                                         "prompt_template": ["t", "t"], "model": ["m", "m"],
                                         "paper_id": ["A", "B"], "overall_score": [6.0, 9.0],
                                         "is_parsed": [True, True]}))
        con.execute("create table fct_ai_review_scores as select * from df")
    ok = CliRunner().invoke(_app(), ["report"])
    assert ok.exit_code == 0, ok.output
    page = (tmp_path / "reports" / "s1.html").read_text()
    assert "<h2>Score histograms</h2>" in page and "Within-paper spread: not shown" in page
    assert "Study <b>s1</b>" in page and (tmp_path / "reports" / "s2.html").is_file()
