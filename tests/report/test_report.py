"""A real dbt build of the granularity / probe marts over real events, checked against independent
re-computations, then the report page rendered from that warehouse."""

import os
import re
import subprocess
import sys
from itertools import permutations
from pathlib import Path

import duckdb
import numpy as np
import pytest

from peerlake.report import write_report
from tests.report.report_lake import build_report_lake

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
MINE = "+reliability_granularity +reliability_distribution_estimation +int_score_probes_parsed +fct_ai_review_scores"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("report_lake")
    truth = build_report_lake(root / "lake")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_")}
    env.update(PEERLAKE_HOME=str(root / "lake"), PEERLAKE_DUCKDB_PATH=str(root / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", *MINE.split(),
         "--indirect-selection", "cautious", "--project-dir",
         str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR), "--target-path", str(root / "target"),
         "--log-path", str(root / "logs"), "--vars", "{distribution_bootstrap: 2000, granularity_bootstrap: 2000}"],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return truth, root / "marts.duckdb", root


def rows(db: Path, sql: str) -> list[dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def test_granularity_mart_matches_a_recomputation(built):
    truth, db, _ = built
    (g,) = rows(db, "select * from reliability_granularity")
    papers = sorted(truth["integer"])
    shift = np.mean([np.mean(truth["decimal"][p]) - np.mean(truth["integer"][p]) for p in papers])
    assert g["n_papers"] == len(papers)
    assert g["mean_shift"] == pytest.approx(shift)
    assert g["mean_shift_ci_low"] < g["mean_shift"] < g["mean_shift_ci_high"]
    assert g["n_decimal_invalid"] == 1 and g["n_decimal_reviews"] == 3 * len(papers)
    sd_dec = np.sqrt(np.mean([np.var(truth["decimal"][p], ddof=1) for p in papers]))
    assert g["within_paper_sd_decimal"] == pytest.approx(sd_dec)
    mae_int = np.mean([abs(np.mean(truth["integer"][p]) - truth["human"][p]) for p in papers])
    assert g["mae_integer"] == pytest.approx(mae_int)


def test_probe_parsing_splits_one_and_ten(built):
    _, db, _ = built
    probes = {r["paper_id"]: r for r in rows(db, "select * from int_score_probes_parsed")}
    assert len(probes) == 12 and all(r["is_parsed"] for r in probes.values())
    p01 = probes["P01"]  # answered "1": P("0"|"1") = 0.2 from its own next token
    assert p01["ten_method"] == "same_call"
    assert (p01["prob_1"], p01["prob_10"]) == pytest.approx((0.5 * 0.8, 0.5 * 0.2))
    p02 = probes["P02"]  # the continuation says P("0"|"1") = 0.25
    assert p02["ten_method"] == "continuation" and p02["continuation_llm_call_id"]
    assert p02["p_zero_after_one"] == pytest.approx(0.25)
    total = sum(p02[f"prob_{s}"] for s in range(1, 11))
    assert total == pytest.approx(1.0)
    assert p02["prob_10"] / p02["prob_1"] == pytest.approx(0.25 / 0.75)


def test_distribution_mart_direct_risks_match_collision_rates(built):
    truth, db, _ = built
    d = {r["method"]: r for r in rows(db, "select * from reliability_distribution_estimation")}
    assert set(d) == {"quick", "standard", "direct_1", "direct_2", "direct_3", "direct_5"}

    def collision(z):
        return sum(a == b for a, b in permutations(z, 2)) / (len(z) * (len(z) - 1))
    for n in (1, 2, 3, 5):
        expect = np.mean([(1 - collision(truth["integer"][p][:5])) / n for p in truth["integer"]])
        assert d[f"direct_{n}"]["risk"] == pytest.approx(expect)
    # the probe sits one point high; after fitting the shift it beats a single full review
    assert d["quick"]["risk"] < d["direct_1"]["risk"]
    assert all(r["n_papers"] == 12 and r["n_splits"] == 30 for r in d.values())


def test_report_page_has_every_section_and_notes_missing_marts(built):
    _, db, root = built
    out = write_report(db, root / "reports" / "report.html")
    page = out.read_text()
    for heading in ["Reviewer configurations", "Score histograms", "Within-paper spread",
                    "Do independent reviews reproduce the ranking?", "How many reviews are enough?",
                    "Does finer granularity help?", "A cheaper probe for the score distribution"]:
        assert f"<h2>{heading}</h2>" in page
    # built without the other reliability marts: those sections say so instead of failing
    assert re.search(r"Budget curve: not shown — the warehouse's <code>reliability_budgets</code> is not there", page)
    assert "reliability_rank_reproducibility" in page
    assert page.count("data:image/png;base64,") == 2  # histograms and risks; SD, rank, budget need others' marts
    assert "reviewer_scoring_decimal · qwen-test" in page
    assert "src=\"http" not in page and "<script" not in page  # self-contained


def test_rank_and_budget_sections_render_from_their_marts(tmp_path):
    import pandas as pd

    db = tmp_path / "w.duckdb"
    scores = pd.DataFrame({"reviewer_config": ["c1"] * 4, "prompt_template": ["reviewer_scoring"] * 4,
                           "model": ["m"] * 4, "paper_id": ["A", "A", "B", "B"], "overall_score": [5.0, 6, 7, 7],
                           "is_parsed": [True] * 4})
    rep = pd.DataFrame({"reviewer_config": ["c1"], "n_papers": [2], "within_paper_sd": [0.5]})
    rank = pd.DataFrame({"reviewer_config": ["c1"] * 2, "k": [1, 2], "pct_same": [60.0, 70.0],
                         "pct_tie": [25.0, 20.0], "pct_reverse": [15.0, 10.0], "n_papers": [2, 2]})
    budgets = pd.DataFrame({"reviewer_config": ["c1"], "tolerance": [0.5], "variance_hat": [0.25],
                            "variance_upper": [1.5], "planning_budget": [20], "certified_budget": [120],
                            "range_only_budget": [598]})
    with duckdb.connect(str(db)) as con:
        for name, df in [("fct_ai_review_scores", scores), ("reliability_repeatability", rep),
                         ("reliability_rank_reproducibility", rank), ("reliability_budgets", budgets)]:
            con.register("df", df)
            con.execute(f"create table {name} as select * from df")
            con.unregister("df")
    page = write_report(db, tmp_path / "r.html").read_text()
    assert page.count("data:image/png;base64,") == 4  # histograms, SD, rank curve, budget curve
    assert "<td>120</td>" in page and "<td>0.25</td>" in page
    assert "Budget curve: not" not in page and "Rank reproducibility: not" not in page
    assert "Granularity: not shown — the warehouse's <code>reliability_granularity</code> is not there" in page
    # two papers: the rank figure says how many and warns that a clean-looking share means nothing yet
    rank_section = page.split("Do independent reviews reproduce the ranking?</h2>")[1].split("<h2>")[0]
    assert "(papers per configuration: 2)" in rank_section
    assert "<b>Small sample:</b> these figures rest on 2 papers" in rank_section


def test_empty_sections_say_what_the_study_would_need(tmp_path):
    import pandas as pd

    db = tmp_path / "w.duckdb"
    empty = {"fct_ai_review_scores": pd.DataFrame({"reviewer_config": ["c1"], "prompt_template": ["t"], "model": ["m"],
                                                   "paper_id": ["A"], "overall_score": [5.0], "is_parsed": [True]}),
             "reliability_budgets": pd.DataFrame({"reviewer_config": ["c1"], "tolerance": [0.5], "variance_hat": [0.2],
                                                  "variance_upper": [1.0]}).head(0)}
    with duckdb.connect(str(db)) as con:
        for name, df in empty.items():
            con.register("df", df)
            con.execute(f"create table {name} as select * from df")
            con.unregister("df")
    page = write_report(db, tmp_path / "r.html").read_text()
    assert ("Budget curve: not measured in this study — it needs repeated reviews of each paper ([[reviewers]] "
            "samples ≥ 2).") in page
    assert "no rows yet" not in page and " skipped" not in page


def test_gates_pass_on_the_built_marts_and_catch_a_broken_interval(built, monkeypatch):
    import pandas as pd

    from peerlake.expectations import gates, suite_distribution_estimation, suite_granularity

    monkeypatch.setitem(gates.SUITES, "distribution_estimation", suite_distribution_estimation)
    monkeypatch.setitem(gates.SUITES, "granularity", suite_granularity)
    _, db, _ = built
    for name in ("distribution_estimation", "granularity"):
        result = gates.run_gate(name, db)
        assert result.success, result.describe()
    frame = pd.DataFrame(rows(db, "select * from reliability_granularity"))
    frame.loc[0, "mean_shift_ci_low"] = frame.loc[0, "mean_shift"] + 1  # an interval missing its estimate
    broken = gates.validate_frame("granularity", frame[suite_granularity.COLUMNS])
    assert not broken.success and any("mean_shift_ci_low" in f for f in broken.failures)


def test_report_asset_writes_the_page_into_the_lake(built):
    import shutil

    from dagster import materialize

    from peerlake.orchestration.assets.report_page import reliability_report
    from peerlake.orchestration.resources import LakeResource

    _, db, root = built
    shutil.copy(db, root / "lake" / "peerlake.duckdb")
    result = materialize([reliability_report], resources={"lake": LakeResource(root=str(root / "lake"))})
    assert result.success
    page = (root / "lake" / "reports" / "test.html").read_text()  # the lake's one study, "test"
    assert "<h2>Does finer granularity help?</h2>" in page
    (mat,) = [e.event_specific_data.materialization for e in result.get_asset_materialization_events()]
    assert mat.metadata["sections_skipped"].value >= 1  # this lake has no budgets mart
