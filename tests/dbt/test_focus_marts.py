"""The focus marts built by real dbt over a hand-written lake (tests/dbt/focus_lake.py says what is in it):
study scoping (K, variants, a recorded judge scope), not-judged and null reviews, shares over the whole
taxonomy, null shares, the four KL components worked by hand, and the gates on the built marts."""

import math

import pytest

from peerlake.expectations import run_gate
from tests.dbt.focus_lake import build_focus_lake
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows

EPS = 1e-6


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("focus_lake")
    keys = build_focus_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")  # only tests whose every parent is built
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+focus_divergence")
    return keys, db, run_results


def test_the_build_ran_the_focus_models_and_their_tests(built):
    *_, run_results = built
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_focus_judgments", "int_focus_items", "focus_distributions", "focus_divergence",
                 "focus_distributions_column_checks", "focus_divergence_column_checks"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_the_reviews_each_study_counts(built):
    keys, db, _ = built
    got = {(r["study_id"], r["review_key"]): r for r in rows(db, "select * from int_focus_judgments")}
    # S: H1, H2, H3 (null), R1, R2 (not judged); not R3 (sample 1, K = 1), not RV (a variant's, not judged)
    assert sorted(k for s, k in got if s == "S") == sorted(keys[n] for n in ("H1", "H2", "H3", "R1", "R2"))
    assert got[("S", keys["H2"])]["judge_config"] == "G"  # no scope recorded: the newest judgment counts
    assert got[("T", keys["H2"])]["judge_config"] == "F"  # T's recorded scope names F only
    assert (got[("S", keys["R2"])]["null_reason"], got[("S", keys["R2"])]["repeat_index"]) == ("not_judged", None)
    assert got[("S", keys["H3"])]["null_reason"] == "no_items"
    assert got[("S", keys["R1"])]["reviewer_config"] == "cfg-sys" and got[("S", keys["R1"])]["reviewer_label"] == "mlr"
    assert got[("S", keys["H1"])]["reviewer_config"] == "human"
    assert sorted(k for s, k in got if s == "T") == sorted(keys[n] for n in ("H1", "H2", "R1"))


def test_distributions_list_every_label_with_counts_and_shares(built):
    _, db, _ = built
    d = {(r["study_id"], r["reviewer_config"], r["polarity"], r["dimension"], r["label"]): r
         for r in rows(db, "select * from focus_distributions")}
    # 2 studies × 2 reviewers × 2 polarities × (3 targets + 4 aspects)
    assert len(d) == 2 * 2 * 2 * 7
    # S humans, weaknesses: H1 experiment ×2, H2 (G) experiment → 3 items, all experiment
    r = d[("S", "human", "weakness", "target", "experiment")]
    assert (r["n_items"], r["n_items_total"], r["share"]) == (3, 3, 1.0)
    assert d[("S", "human", "weakness", "target", "method")]["share"] == 0.0
    # aspects: validity 1, communication_clarity 1, novelty 1 of 3
    assert d[("S", "human", "weakness", "aspect", "novelty")]["share"] == pytest.approx(1 / 3)
    assert d[("S", "human", "weakness", "aspect", "significance")]["n_items"] == 0
    # S humans' reviews: H1, H2, H3 listed, two labelled (H3 null)
    assert (r["n_reviews"], r["n_reviews_labelled"], r["n_judgments_null"]) == (3, 2, 1)
    # T humans, weaknesses under F: H1 experiment ×2, H2 method → method 1/3
    assert d[("T", "human", "weakness", "target", "method")]["share"] == pytest.approx(1 / 3)
    # T humans' strengths: H1 method/novelty only (H2 under F has none)
    assert d[("T", "human", "strength", "target", "method")]["n_items_total"] == 1
    # the system in S: R1's two strengths (R3 not counted), both method
    s = d[("S", "cfg-sys", "strength", "target", "method")]
    assert (s["n_items"], s["n_items_total"], s["share"], s["n_reviews"], s["n_reviews_labelled"]) == (2, 2, 1.0, 2, 1)
    assert d[("S", "cfg-sys", "strength", "target", "paper")]["share_null_reason"] is None


def test_divergence_components_worked_by_hand(built):
    _, db, _ = built
    got = {r["study_id"]: r for r in rows(db, "select * from focus_divergence")}
    s = got["S"]
    assert (s["reviewer_config"], s["reviewer_label"], s["n_components"], s["null_reason"]) == ("cfg-sys", "mlr", 4,
                                                                                                  None)
    # strength·target over {paper, method, experiment}, K = 3: P_human = (1/2, 1/2, 0), Q_mlr = (0, 1, 0)
    #   p = (0.5+ε, 0.5+ε, ε)/(1+3ε), q = (ε, 1+ε, ε)/(1+3ε)
    #   KL = (0.5+ε)/(1+3ε) · [ln((0.5+ε)/ε) + ln((0.5+ε)/(1+ε))] ≈ 0.5·(13.122365 − 0.693148)·(1 − 3ε) ≈ 6.214603
    st = (0.5 + EPS) / (1 + 3 * EPS) * (math.log((0.5 + EPS) / EPS) + math.log((0.5 + EPS) / (1 + EPS)))
    # strength·aspect over {validity, novelty, communication_clarity, significance}, K = 4:
    #   P = (0, 1/2, 0, 1/2), Q = (1/2, 1/2, 0, 0)
    #   KL = [ε·ln(ε/(0.5+ε)) + (0.5+ε)·ln((0.5+ε)/ε)]/(1+4ε) = 0.5·ln((0.5+ε)/ε)/(1+4ε) ≈ 6.561183·(1 − 4ε) ≈ 6.561156
    sa = 0.5 * math.log((0.5 + EPS) / EPS) / (1 + 4 * EPS)
    # weakness·target: P = Q = (0, 0, 1) → 0
    # weakness·aspect: P = (1/3, 1/3, 1/3, 0), Q = (1, 0, 0, 0)
    #   KL = (1/3+ε)/(1+4ε) · [ln((1/3+ε)/(1+ε)) + 2·ln((1/3+ε)/ε)] ≈ (1/3)(−1.098612 + 2·12.716898)·(1 − 4ε) ≈ 8.111723
    wa = (1 / 3 + EPS) / (1 + 4 * EPS) * (math.log((1 / 3 + EPS) / (1 + EPS)) + 2 * math.log((1 / 3 + EPS) / EPS))
    assert (st, sa, wa) == pytest.approx((6.214603, 6.561156, 8.111723), abs=2e-6)
    assert s["kl_strength_target"] == pytest.approx(st, rel=1e-9)
    assert s["kl_strength_aspect"] == pytest.approx(sa, rel=1e-9)
    assert s["kl_weakness_target"] == pytest.approx(0, abs=1e-12)
    assert s["kl_weakness_aspect"] == pytest.approx(wa, rel=1e-9)
    assert s["kl_mean"] == pytest.approx((6.214603 + 6.561156 + 0 + 8.111723) / 4, abs=2e-6)
    assert s["epsilon"] == EPS
    assert (s["n_items_strength"], s["n_items_weakness"], s["n_human_items_strength"],
            s["n_human_items_weakness"]) == (2, 1, 2, 3)


def test_the_gates_pass_on_the_built_marts(built):
    _, db, _ = built
    for suite in ("focus_distributions", "focus_divergence"):
        result = run_gate(suite, db)
        assert result.success, result.describe()


def test_the_report_section_draws_the_built_marts(built):
    from peerlake.report.data import load
    from peerlake.report.focus import section

    _, db, _ = built
    page = section(load(db, study="S"), {})
    assert page.count("<img src=\"data:image/png;base64,") == 1
    assert "mlr · cfg-sys" in page and "<td>0.000</td>" in page  # weakness·target KL is 0
    assert f"{(6.214603 + 6.561156 + 8.111723) / 4:.3f}" in page  # the mean KL
    assert "peerlake audit &#x27;focus_divergence:S|cfg-sys&#x27;" in page
