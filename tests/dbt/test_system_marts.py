"""The reviewer-system marts built by real dbt over a hand-written lake (tests/dbt/systems_lake.py says what
is in it): costs per review with replayed calls, the critical path, an unpriced call, a null review, an
unscored system kept out of the score marts, study scoping, and the gates on the built marts."""

import re
from pathlib import Path

import pytest
import yaml

from peerlake.expectations import run_gate
from peerlake.reviewing.systems.normalized import SCORE_SCALES
from tests.dbt.systems_lake import CALL_COST, NULL_REASON, build_systems_lake
from tests.dbt.test_marts import dbt_build

MODELS = Path(__file__).resolve().parents[2] / "dbt_project" / "models"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("systems_lake")
    reviews = build_systems_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        # only tests whose every parent is built (fct_ai_review_scores' relationship to fct_llm_calls is)
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                                    select="+system_summary +fct_ai_review_scores +int_judged_reviews "
                                           "+cost_breakdown +fct_llm_calls")
    return reviews, db, run_results


def rows(db, sql: str) -> list[dict]:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def test_the_build_ran_the_system_models_and_their_tests(built):
    *_, run_results = built
    # model.peerlake.NAME, test.peerlake.NAME.hash, unit_test.peerlake.MODEL.NAME
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_system_reviews", "int_system_calls", "system_review_costs", "system_summary",
                 "system_summary_column_checks", "system_review_costs_column_checks",
                 "test_fct_ai_review_scores_newest_answer_per_slot"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_the_newest_review_per_slot_is_typed_and_flagged(built):
    reviews, db, _ = built
    got = {(r["paper_id"], r["system_config"], r["sample_index"]): r
           for r in rows(db, "select * from int_system_reviews")}
    assert len(got) == 7  # cfg-ai 2 × 2 (P1/0 superseded once), cfg-llm 3 (its P1/1 too: K applies later)
    p1 = got[("P1", "cfg-ai", 0)]
    assert p1["system_review_id"] == reviews["ai_p1_0"].event_id  # not the older score-3 review
    assert (p1["overall_score"], p1["is_parsed"], p1["is_scored"], p1["confidence"]) == (6.0, True, True, 4.0)
    assert p1["strengths"] == ["clear"] and p1["weaknesses"] == ["small n", "no ablation"]
    assert p1["questions"] == ["Why this baseline?"]  # one string is one item
    assert p1["recommendation"] == "accept" and p1["n_calls"] == 5
    off = got[("P2", "cfg-ai", 0)]
    assert (off["overall_score"], off["overall_score_raw"], off["parse_error"]) == (
        None, 12.0, "overall_score_out_of_range")
    null = got[("P2", "cfg-ai", 1)]
    assert (null["status"], null["is_parsed"], null["parse_error"]) == ("null", False, f"system_null:{NULL_REASON}")
    assert null["strengths"] == [] and null["summary"] is None
    llm = got[("P1", "cfg-llm", 0)]
    # no score and no scale: not scored, and not a parse failure either
    assert (llm["is_scored"], llm["is_parsed"], llm["parse_error"], llm["overall_score"]) == (False, True, None, None)


def test_the_scales_are_one_table_read_by_python_and_sql():
    # dbt_project.yml's score_scales: the model writes no scale of its own, and Python reads the same rows
    # (the out-of-range test above shows the model checks scores against them)
    sql = (MODELS / "intermediate" / "int_system_reviews.sql").read_text()
    assert "var('score_scales')" in sql and not re.search(r"\('\w+_1_10'", sql)
    declared = yaml.safe_load((MODELS.parent / "dbt_project.yml").read_text())["vars"]["score_scales"]
    assert {name: (s["min"], s["max"]) for name, s in declared.items()} == SCORE_SCALES
    assert SCORE_SCALES["neurips_1_10"] == (1.0, 10.0)


def test_each_review_costs_its_calls_replayed_or_not(built):
    _, db, _ = built
    got = {(r["study_id"], r["system_config"], r["paper_id"], r["sample_index"]): r
           for r in rows(db, "select * from system_review_costs")}
    # S: cfg-ai 2 papers × 2 samples, cfg-llm 2 papers × 1 (its P1/1 is beyond K = 1); T: cfg-ai P1/0
    assert sorted(got) == [("S", "cfg-ai", "P1", 0), ("S", "cfg-ai", "P1", 1), ("S", "cfg-ai", "P2", 0),
                           ("S", "cfg-ai", "P2", 1), ("S", "cfg-llm", "P1", 0), ("S", "cfg-llm", "P2", 0),
                           ("T", "cfg-ai", "P1", 0)]
    a = got[("S", "cfg-ai", "P1", 0)]
    # 5 calls × 0.0056; model time 10+12+5+4+3 = 34 s; wall: max(10,12) + max(5,4) + 3 = 20 s
    assert (a["n_calls"], a["input_tokens"], a["output_tokens"]) == (5, 5000, 500)
    assert a["cost_usd"] == pytest.approx(5 * CALL_COST) and a["is_cost_complete"]
    assert (a["model_seconds"], a["wall_seconds"], a["n_calls_made_by_study"]) == (34.0, 20.0, 5)
    b = got[("S", "cfg-ai", "P1", 1)]
    # replayed from study OLD: still 6 calls to make it (a repair turn after meta), 1 failed attempt before an
    # answer; wall: max(10,10) + max(4,6) + (3 + 2, the repair follows its answer) = 21 s; model 35 s
    assert (b["n_calls"], b["n_error_attempts"], b["n_calls_made_by_study"]) == (6, 1, 0)
    assert b["cost_usd"] == pytest.approx(6 * CALL_COST)
    assert (b["model_seconds"], b["wall_seconds"]) == (35.0, 21.0)
    null = got[("S", "cfg-ai", "P2", 1)]
    # the null review's calls were paid for too: 6 × 0.0056; wall 1 + 1 + (1 + 1) = 4 s
    assert (null["status"], null["null_reason"], null["overall_score"]) == ("null", NULL_REASON, None)
    assert null["cost_usd"] == pytest.approx(6 * CALL_COST) and null["wall_seconds"] == 4.0
    unpriced = got[("S", "cfg-llm", "P2", 0)]
    # its call was made before gpt-t had a price: the cost is unknown, not 0
    assert (unpriced["cost_usd"], unpriced["is_cost_complete"], unpriced["n_calls_unpriced"]) == (None, False, 1)
    t = got[("T", "cfg-ai", "P1", 0)]
    assert t["cost_usd"] == pytest.approx(5 * CALL_COST) and t["n_calls_made_by_study"] == 0  # S paid


def test_the_summary_per_study_and_system(built):
    _, db, _ = built
    got = {r["system_summary_id"]: r for r in rows(db, "select * from system_summary")}
    assert sorted(got) == ["S|cfg-ai", "S|cfg-llm", "T|cfg-ai"]
    ai = got["S|cfg-ai"]
    assert (ai["system_name"], ai["n_papers"], ai["n_reviews"], ai["n_ok_reviews"], ai["n_null_reviews"]) == (
        "ai-scientist", 2, 4, 3, 1)
    assert (ai["top_null_reason"], ai["n_top_null_reason"]) == (NULL_REASON, 1)
    # calls (5 + 6 + 5 + 6) / 4 = 5.5; error attempts 1/4; input 22,000 / 4 = 5,500 tokens
    assert (ai["calls_per_review_mean"], ai["error_attempts_per_review_mean"]) == (5.5, 0.25)
    assert ai["input_tokens_per_review_mean"] == 5500.0 and ai["output_tokens_per_review_mean"] == 550.0
    # 22 calls × 0.0056 = 0.1232 in all; per review 0.0308; per paper (11 calls each) 0.0616
    assert ai["cost_total_usd"] == pytest.approx(0.1232)
    assert ai["cost_per_review_mean_usd"] == pytest.approx(0.0308)
    assert ai["cost_per_paper_mean_usd"] == pytest.approx(0.0616)
    # wall (20 + 21 + 3 + 4) / 4 = 12 s; model (34 + 35 + 5 + 6) / 4 = 20 s; 16 of 22 calls made by S
    assert (ai["wall_seconds_per_review_mean"], ai["model_seconds_per_review_mean"]) == (12.0, 20.0)
    assert (ai["n_calls"], ai["n_calls_made_by_study"]) == (22, 16)
    # scored: 6 and 8 (12 is off the scale, the null review has none): mean 7, sd √2; P1's two samples give
    # the within-paper variance (6-7)² + (8-7)² / 1 = 2 → sd √2
    assert (ai["n_scored_reviews"], ai["score_mean"]) == (2, 7.0)
    assert ai["score_sd"] == pytest.approx(2 ** 0.5) and ai["within_paper_sd"] == pytest.approx(2 ** 0.5)
    assert ai["reference_cost_per_review_usd"] == 0.49 and "T9" in ai["reference_source"]
    llm = got["S|cfg-llm"]
    assert (llm["is_scored"], llm["n_scored_reviews"], llm["score_mean"], llm["within_paper_sd"]) == (
        False, 0, None, None)
    # one review of unknown cost: every total is unknown, never the smaller known part
    assert (llm["n_reviews_cost_unknown"], llm["is_cost_complete"]) == (1, False)
    assert (llm["cost_total_usd"], llm["cost_per_review_mean_usd"], llm["cost_per_paper_mean_usd"]) == (
        None, None, None)
    assert (llm["n_null_reviews"], llm["top_null_reason"], llm["reference_cost_per_review_usd"]) == (0, None, 0.01)
    assert llm["wall_seconds_per_review_mean"] == 25.0  # (30 + 20) / 2
    assert got["T|cfg-ai"]["n_reviews"] == 1 and got["T|cfg-ai"]["n_calls_made_by_study"] == 0


def test_scored_system_reviews_enter_the_score_marts_and_unscored_ones_do_not(built):
    reviews, db, _ = built
    got = rows(db, "select * from fct_ai_review_scores order by study_id, paper_id, sample_index")
    assert {r["reviewer_config"] for r in got} == {"cfg-ai"}  # llm-review gives no score: not here
    s = [(r["paper_id"], r["sample_index"], r["overall_score"], r["is_parsed"], r["parse_error"])
         for r in got if r["study_id"] == "S"]
    assert s == [("P1", 0, 6.0, True, None), ("P1", 1, 8.0, True, None),
                 ("P2", 0, None, False, "overall_score_out_of_range"),
                 ("P2", 1, None, False, f"system_null:{NULL_REASON}")]
    assert all(r["source"] == "peerlake" and r["llm_call_id"] is None and r["prompt_template"] == "ai-scientist"
               for r in got)
    assert {r["system_review_id"] for r in got if r["study_id"] == "S"} == {
        reviews[k].event_id for k in ("ai_p1_0", "ai_p1_1", "ai_p2_0", "ai_p2_1")}


def test_system_reviews_have_judging_keys_and_show_unjudged(built):
    reviews, db, _ = built
    keys = {r["review_key"]: r for r in rows(db, "select * from int_judging_review_keys where source = 'peerlake'")}
    for name in ("ai_p1_0", "ai_p1_1", "ai_p2_1", "llm_p1_0", "old"):
        row = keys[f"peerlake:{reviews[name].review_key}"]
        assert (row["paper_id"], row["system"], row["review_event_id"]) == (
            reviews[name].paper_id, reviews[name].system_config, reviews[name].event_id)
    judged = rows(db, "select * from int_judged_reviews")
    assert [(r["review_key"], r["source"], r["system"], r["is_judged"], r["null_reason"]) for r in judged] == [
        (f"peerlake:{reviews['ai_p1_0'].review_key}", "peerlake", "cfg-ai", False, "not_judged")]


def test_system_calls_appear_in_the_cost_breakdown(built):
    _, db, _ = built
    got = {r["dimension_value"]: r for r in rows(
        db, "select * from cost_breakdown where study_scope = 'S' and dimension in ('reviewer_config', 'prompt')")}
    # S paid for 16 cfg-ai calls of the reviews it keeps + the superseded review's 5 = 21 (OLD paid 6 + 1 error)
    assert got["cfg-ai"]["n_paid_calls"] == 21 and got["cfg-ai"]["cost_usd"] == pytest.approx(21 * CALL_COST)
    assert got["cfg-llm"]["n_paid_calls"] == 3 and not got["cfg-llm"]["is_cost_complete"]
    assert got["ai-scientist_meta@h"]["n_paid_calls"] == 5  # 1 per review of S's 4 runs + the null one's repair
    # the system dimension names the system whose steps made the calls (the same calls as its config here)
    systems = {r["dimension_value"]: r for r in rows(
        db, "select * from cost_breakdown where study_scope = 'S' and dimension = 'system'")}
    assert set(systems) == {"ai-scientist", "llm-review"}
    assert systems["ai-scientist"]["n_paid_calls"] == 21 and systems["llm-review"]["n_paid_calls"] == 3


@pytest.mark.parametrize("suite", ["system_review_costs", "system_summary"])
def test_the_system_gates_pass_on_the_built_marts(built, suite):
    _, db, _ = built
    result = run_gate(suite, db)
    assert result.success, result.describe()


def test_the_score_gate_sees_the_null_review_but_not_in_its_tolerance(built):
    _, db, _ = built
    result = run_gate("ai_review_scores", db)
    # 12 is off the 1-10 scale: 1 of 3 raw scores (the null review has none) > the 5% tolerance. Nothing else
    # fails: a system review needs no llm_call_id or confidence, its null review names its reason.
    assert [f.split(":")[0] for f in result.failures] == [
        "expect_column_values_to_be_between(overall_score_raw, mostly=0.95, min_value=1.0, max_value=10.0)"]


def test_the_report_page_shows_the_systems_of_the_study(built):
    from peerlake.report import render_report

    _, db, _ = built
    page = render_report(db, "S")
    section = page.split("<h2>Reviewer systems</h2>")[1].split("<h2>")[0]
    # cfg-ai: 0.0308 per review (hand-worked above) beside the literature's $0.49; cfg-llm's cost is unknown
    assert "<td>$0.0308</td>" in section and ">$0.4900</td>" in section and "<td>$0.0616</td>" in section
    assert "not measured: 1 review(s) with an unpriced call" in section
    assert "not measured: the system gives no score" in section  # llm-review's score, SD and validity
    assert "<td>7.00 ± 1.41</td>" in section and "<td>1.41</td>" in section
    assert f"1 (most: {NULL_REASON})" in section
    assert 'alt="score distribution per system"' in section and 'alt="cost per review per system"' in section
    assert "peerlake audit &#x27;system_summary:S|cfg-ai&#x27;" in section or "system_summary:S|cfg-ai" in section
    assert "PRISM profile: <span class='nm'>not measured" in section  # no judgments in this build
