"""The score-prediction marts built by real dbt over a hand-written lake (tests/dbt/score_prediction_lake.py
says what is in it): predictions per review over the listed repeats, study scoping of judge configs,
the paper means, the correlations with hand-worked values, text overlap, and the gates."""

import math

import pytest

from peerlake.expectations import run_gate
from tests.dbt.score_prediction_lake import build_score_prediction_lake
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("score_prediction_lake")
    systems = build_score_prediction_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                                    select="+score_prediction_correlations +text_overlap")
    return systems, db, run_results


def test_the_models_and_their_tests_ran(built):
    *_, run_results = built
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_score_prediction_reviews", "int_score_predictions", "score_prediction_papers",
                 "score_prediction_correlations", "text_overlap",
                 "int_score_predictions_column_checks",
                 "score_prediction_correlations_column_checks"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_review_predictions_average_the_listed_repeats(built):
    systems, db, _ = built
    got = {(r["study_id"], r["judge_config"], r["review_key"]): r
           for r in rows(db, "select * from int_score_predictions")}
    s = {k[2]: v for k, v in got.items() if k[0] == "S"}
    assert {k[1] for k in got if k[0] == "S"} == {"jsp"}  # jother is not S's configuration
    # hA1: repeats 0, 1 = 8, 8 (repeat 2 is beyond S's 2 repeats); hA2: (6 + 7) / 2 = 6.5
    assert (s["human:hA1"]["predicted_score"], s["human:hA1"]["n_repeats"]) == (8.0, 2)
    assert s["human:hA2"]["predicted_score"] == 6.5 and s["human:hA2"]["predicted_score_sd"] == pytest.approx(
        math.sqrt(0.5))  # sample SD of 6, 7: sqrt(((-.5)² + .5²) / 1)
    # hB1: repeat 1 out of scale, dropped and counted; the mean is repeat 0's 5
    b = s["human:hB1"]
    assert (b["predicted_score"], b["n_repeats"], b["n_repeats_scored"], b["n_out_of_scale"], b["null_reason"]) == (
        5.0, 2, 1, 1, None)
    assert s["human:hD1"]["n_repeats"] == 1
    # the system's D review was never judged; its older A review is superseded (not in scope)
    d = s[systems["D"]]
    assert (d["predicted_score"], d["null_reason"], d["n_repeats"]) == (None, "not_judged", 0)
    assert sum(1 for k in s if k.startswith("peerlake:")) == 4
    assert (s[systems["A"]]["source"], s[systems["A"]]["reviewer"]) == ("peerlake", "cfg-sys")
    assert s["human:hE1"]["venue"] == "NeurIPS.cc/2024/Conference" and s["human:hE1"]["venue_year"] == 2024
    # T lists no configuration: every one on its reviews counts, every repeat: jsp hA1 (8 + 8 + 1) / 3
    t = {(k[1], k[2]): v for k, v in got.items() if k[0] == "T"}
    assert set(t) == {("jsp", "human:hA1"), ("jsp", "human:hA2"), ("jother", "human:hA1"), ("jother", "human:hA2")}
    assert t[("jsp", "human:hA1")]["predicted_score"] == pytest.approx(17 / 3)
    assert t[("jother", "human:hA1")]["predicted_score"] == 2.0
    assert t[("jother", "human:hA2")]["null_reason"] == "not_judged"


def test_paper_means(built):
    _, db, _ = built
    got = {(r["source"], r["paper_id"]): r for r in rows(
        db, "select * from score_prediction_papers where study_id = 'S'")}
    # A: (8 + 6.5) / 2 = 7.25 beside the human mean (8 + 6) / 2 = 7
    a = got[("human", "A")]
    assert (a["predicted_score"], a["human_score_mean"], a["n_reviews"], a["acceptance_label"]) == (7.25, 7.0, 2, 1)
    assert got[("human", "C")]["predicted_score"] == 4.0 and got[("human", "C")]["acceptance_label"] == 0
    assert got[("peerlake", "D")]["predicted_score"] is None and got[("peerlake", "D")]["null_reason"] == "not_judged"
    assert got[("human", "E")]["venue"] == "NeurIPS.cc/2024/Conference" and got[("human", "E")]["is_variant"] is False


def test_correlations_with_hand_worked_values(built):
    _, db, _ = built
    got = {(r["study_id"], r["reviewer"], r["venue"]): r
           for r in rows(db, "select * from score_prediction_correlations")}
    iclr = "ICLR.cc/2025/Conference"
    h = got[("S", "human", iclr)]
    # x = predicted (7.25, 5, 4, 1), y = human (7, 6, 4, 1): means 4.3125, 4.5;
    # Σdxdy = 2.9375·2.5 + .6875·1.5 + (−.3125)(−.5) + (−3.3125)(−3.5) = 20.125,
    # Σdx² = 20.171875, Σdy² = 21 → r = 20.125 / √(20.171875·21) = 0.977813; both orders agree → ρ = τ = 1
    assert (h["n_papers"], h["is_reference"], h["venue_year"], h["null_reason"]) == (4, True, 2025, None)
    assert h["pearson"] == pytest.approx(20.125 / math.sqrt(20.171875 * 21))
    assert h["spearman"] == pytest.approx(1.0) and h["kendall_tau_b"] == pytest.approx(1.0)
    s = got[("S", "cfg-sys", iclr)]
    # x = (8, 3, 5) for A, B, C (D not judged), y = (7, 6, 4): Σdxdy = 30/9, Σdx² = 114/9, Σdy² = 42/9
    # → r = 30 / √(114·42); ranks x (3, 1, 2), y (3, 2, 1) → ρ = 1/2; pairs AB, AC concordant, BC not → τ = 1/3
    assert (s["n_papers_in_scope"], s["n_papers_predicted"], s["n_papers"]) == (4, 3, 3)
    assert s["pearson"] == pytest.approx(30 / math.sqrt(114 * 42))
    assert s["spearman"] == pytest.approx(0.5) and s["kendall_tau_b"] == pytest.approx(1 / 3)
    e = got[("S", "human", "NeurIPS.cc/2024/Conference")]
    assert (e["n_papers"], e["pearson"], e["null_reason"]) == (1, None, "fewer_than_3_papers")


def test_text_overlap_pairs_each_review_with_its_papers_human_reviews(built):
    _, db, _ = built
    got = {(r["study_id"], r["reviewer"]): r for r in rows(db, "select * from text_overlap")}
    sys_ = got[("S", "cfg-sys")]
    # tokens: system A "summary the method is weak"; hA1 "review the method is novel"; hA2 "review the method is weak"
    # vs hA1: R1 = RL = 3/5 (F1 of P = R = .6); BLEU p = 3/5, 2/4, 1/3, ε .1/2 → (.6·.5·(1/3)·.05)^¼, BP 1
    # vs hA2: R1 = RL = 4/5; BLEU p = 4/5, 3/4, 2/3, 1/2 → (.2)^¼. The review's score = the mean of the two.
    assert (sys_["n_reviews"], sys_["n_reviews_compared"], sys_["n_pairs"], sys_["n_pairs_bleu"]) == (4, 1, 2, 2)
    assert sys_["rouge_1"] == pytest.approx(0.7) and sys_["rouge_l"] == pytest.approx(0.7)
    assert sys_["bleu_4"] == pytest.approx(((0.6 * 0.5 / 3 * 0.05) ** 0.25 + 0.2 ** 0.25) / 2)
    assert (sys_["bertscore_f1"], sys_["bertscore_status"]) == (None, "weights unavailable")
    hum = got[("S", "human")]
    # hA1↔hA2: R1 = RL = 4/5, BLEU (.8·.75·(2/3)·.5)^¼ = .2^¼; hC1↔hC2 identical: 1, 1, 1
    assert (hum["n_reviews"], hum["n_reviews_compared"], hum["n_pairs"], hum["is_reference"]) == (7, 4, 4, True)
    assert hum["rouge_1"] == pytest.approx(0.9) and hum["bleu_4"] == pytest.approx((2 * 0.2 ** 0.25 + 2) / 4)
    assert got[("T", "human")]["n_reviews_compared"] == 2


def test_the_gates_pass_on_the_built_marts(built):
    _, db, _ = built
    for suite in ("score_prediction_papers", "score_prediction_correlations", "text_overlap"):
        result = run_gate(suite, db)
        assert result.success, (suite, result)


def test_the_report_section_draws_the_marts(built):
    from peerlake.report import score_prediction
    from peerlake.report.data import ReportData, load

    _, db, _ = built
    page = score_prediction.section(load(db, study="S"), {"cfg-sys": "AI Scientist · cfg-sys"})
    # the reference row first, its ICLR cell r / ρ / τ-b (n) as computed above; NeurIPS has one paper
    assert page.index("human reviews (reference)") < page.index("AI Scientist · cfg-sys")
    assert "0.98 / 1.00 / 1.00 (4)" in page and "not measured: fewer_than_3_papers (n = 1)" in page
    assert 'alt="predicted scores, accepted vs rejected"' in page and "data:image/png;base64," in page
    assert "0.700" in page and "not measured: weights unavailable" in page
    assert "peerlake audit &#x27;score_prediction_correlations:S|" in page  # html-escaped quote
    empty = score_prediction.section(ReportData(missing={"score_prediction_correlations": "is not there"}), {})
    assert "Score prediction: not shown" in empty and "<code>score_prediction_correlations</code> is not there" in empty
