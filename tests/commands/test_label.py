"""`peerlake label`'s sample size: what `peerlake plan-labels` asks for on the judge's own metrics (the plan
tests/commands/test_plan_labels.py works by hand: 38 labels with the judge, 9 without), else no plan and why."""

import duckdb

from peerlake.commands.label import planned_n
from tests.commands.test_plan_labels import ROW


def _db(tmp_path, rows):
    db = tmp_path / "marts.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create table quality_comparison (study_id varchar, system varchar, metric varchar, "
                    "judge_config varchar, n_human_labels bigint, n_judged bigint, ppi_var_human double, "
                    "ppi_var_residual double, ppi_var_judge double, naive_diff double, ppi_diff double)")
        for r in rows:
            con.execute("insert into quality_comparison values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ["q", *r.values()])
    return db


def test_the_sample_is_the_most_labels_any_of_the_judges_metrics_needs(tmp_path):
    # PPI reachable for premise_ratio (38); with 12 judged reviews PPI is unreachable, so humans only (9)
    # another judge's metric (its huge variance would ask for thousands) is not this judge's to plan
    other = {**ROW, "judge_config": "other", "n_judged": 12, "ppi_var_human": 1.0}
    db = _db(tmp_path, [ROW, {**ROW, "metric": "doa", "n_judged": 12}, other])
    assert planned_n(db, "q", {"cfg"}, 0.5) == (38, "plan-labels --target-width 0.5")
    (tmp_path / "b").mkdir()
    assert planned_n(_db(tmp_path / "b", [{**ROW, "n_judged": 12}]), "q", {"cfg"}, 0.5)[0] == 9
    assert planned_n(db, "q", {"cfg"}, None) == (None, "no --target-width to plan for")
    n, why = planned_n(db, "q", {"a judge with no metric here"}, 0.5)
    assert n is None and "no human labels" in why
