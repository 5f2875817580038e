"""`peerlake plan-labels`: the plan worked out by hand from the variances quality_comparison holds, and
the command on a small database (and without labels)."""

import duckdb
import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.plan_labels import plan_rows, register

# the variances tests/metrics/quality/test_ppi_comparison_mart.py gets from its 6 labels and 24 judged reviews
ROW = {"system": "sysx", "metric": "premise_ratio", "judge_config": "cfg", "n_human_labels": 6, "n_judged": 24,
       "ppi_var_human": 5 / 144, "ppi_var_residual": 1 / 18, "ppi_var_judge": 1 / 16, "naive_diff": 0.5,
       "ppi_diff": 1 / 6}


def test_plan_by_hand_a_judge_worse_than_no_judge():
    # W = 0.5 for the difference → one mean of width 0.25: (0.125/1.959964)² = 0.00406747
    # humans only: ⌈(5/144)/0.00406747⌉ = ⌈8.54⌉ = 9; PPI: room 0.00406747 − (1/16)/24 = 0.00146330 →
    # ⌈(1/18)/0.00146330⌉ = ⌈37.97⌉ = 38: this judge's error varies more than the humans' labels do, so
    # debiasing costs labels; and below ⌊0.0625/0.00406747⌋ + 1 = 16 judged reviews no label count would do
    (plan,) = plan_rows([ROW], 0.5)
    assert (plan["labels (humans only)"], plan["labels (PPI)"], plan["judged reviews"]) == (9, 38, 24)
    assert plan["saving"] == f"{100 * (1 - 38 / 9):.0f} %" and plan["judged reviews needed at least"] == 16
    assert plan_rows([{**ROW, "n_judged": 12}], 0.5)[0]["labels (PPI)"] == "unreachable"


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    from peerlake.warehouse import Lake

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    db = Lake.default().duckdb_path  # the published marts, as `peerlake query` reads them
    db.parent.mkdir(parents=True, exist_ok=True)
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)
    return db, lambda *args: CliRunner().invoke(app, ["plan-labels", *args])


def _table(db, rows):
    with duckdb.connect(str(db)) as con:
        con.execute("create table quality_comparison (study_id varchar, system varchar, metric varchar, "
                    "judge_config varchar, n_human_labels bigint, n_judged bigint, ppi_var_human double, "
                    "ppi_var_residual double, ppi_var_judge double, naive_diff double, ppi_diff double)")
        for r in rows:
            con.execute("insert into quality_comparison values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        ["q", *r.values()])


def test_the_command_prints_the_plan_and_the_caveat(invoke):
    db, run = invoke
    _table(db, [ROW])
    result = run("q", "--target-width", "0.5")
    assert result.exit_code == 0, result.output
    assert "premise_ratio" in result.output and "38" in result.output and "Dorner" in result.output


def test_without_labels_it_says_how_to_get_them(invoke):
    db, run = invoke
    _table(db, [])
    result = run("q", "--target-width", "0.5")
    assert result.exit_code == 1 and "peerlake ingest labels" in result.output
