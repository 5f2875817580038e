"""The contradiction marts built by real dbt over a hand-written lake (tests/dbt/contradictions_lake.py says
what is in it): items and their validation, study scoping, any-of-k accuracy per distance with Wilson
intervals, the judge audit, the gates on the built marts and the report section. One build, many asserts."""

import pytest

from peerlake.expectations import run_gate
from tests.dbt.contradictions_lake import V0, V1, V2, build_contradictions_lake
from tests.dbt.test_marts import dbt_build

# Wilson 95% bounds written out from the formula (tests/metrics/stats/test_wilson.py checks the function against scipy):
# (p̂, n) = (0.25, 2) → 0.026677, 0.802133;  (1, 2) → 1/(1 + z²/2) = 0.342380, 1;  (0.5, 1) → 0.054621, 0.945379


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("contradictions_lake")
    build_contradictions_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                                    select="+contradiction_detection +contradiction_judge_audit")
    return db, run_results


def rows(db, sql: str) -> list[dict]:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def test_the_models_and_their_tests_ran(built):
    _, run_results = built
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_contradiction_items", "int_contradiction_detections", "contradiction_detection",
                 "contradiction_judge_audit", "contradiction_detection_column_checks"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_items_carry_their_details_and_validation(built):
    db, _ = built
    got = {r["variant_id"]: r for r in rows(db, "select * from int_contradiction_items")}
    assert set(got) == {V0, V1, V2}
    assert (got[V0]["distance"], got[V0]["node_type"], got[V0]["node_level"], got[V0]["item_id"]) == (
        0, "claim", "main", "B:d0")
    assert (got[V0]["validation_status"], got[V0]["is_validated"]) == ("passed", True)
    assert (got[V1]["validation_status"], got[V1]["is_validated"]) == ("failed", False)  # locally detectable
    assert (got[V2]["is_built"], got[V2]["not_built_reason"], got[V2]["validation_status"]) == (
        False, "render_lost_text", "not_validated")


def test_detections_are_scoped_to_the_study(built):
    db, _ = built
    n = {(r["study_id"], r["role"]): r["n"] for r in rows(
        db, "select study_id, role, count(*) as n from int_contradiction_detections group by all")}
    # S detection: cfg-a V0 s0, s1 + V1 s0, s1 (s2 beyond K 2) + cfg-b V0, V1 = 6 subjects × 2 repeats = 12;
    # S audit: a-B-0, a-B-1, b-B-0 × V0, V1 = 6 × 2 = 12. T (cfg-a K 1, no V1): V0 s0 × 2 = 2; audit a-B-0 × V0 = 2
    assert n == {("S", "detection"): 12, ("S", "audit"): 12, ("T", "detection"): 2, ("T", "audit"): 2}
    (newest,) = rows(db, f"select identified from int_contradiction_detections where study_id = 'S' and "
                         f"subject_key = '{V0}|peerlake:a-0-0' and repeat_index = 0")
    assert newest["identified"] is True  # the older answer (no) is superseded
    empty = rows(db, f"select identified from int_contradiction_detections where subject_key = '{V1}|peerlake:b-1-0'")
    assert [r["identified"] for r in empty] == [False, False]  # an empty review identified nothing


def test_accuracy_per_k_and_distance_with_wilson(built):
    db, _ = built
    got = {r["contradiction_detection_id"]: r for r in rows(db, "select * from contradiction_detection")}
    a = "S|jd|peerlake|cfg-a|"
    # k = 1: V0 s0 (yes, no) → 0.5; V1 s0 (no, no) → 0; mean 0.25 over 2 items
    r = got[a + "all|1|all"]
    assert (r["n_items"], r["n_items_measured"], r["accuracy"]) == (2, 2, 0.25)
    assert (r["wilson_lo"], r["wilson_hi"]) == pytest.approx((0.026677, 0.802133), abs=1e-6)
    assert got[a + "all|1|0"]["accuracy"] == 0.5 and got[a + "all|1|1"]["accuracy"] == 0.0
    # k = 2: V0 repeat 0 yes (s0), repeat 1 yes (s1) → 1; V1 repeat 0 (no, unparseable) undecided,
    # repeat 1 (no, yes) → yes → 1; mean 1.0 over 2 items
    r2 = got[a + "all|2|all"]
    assert (r2["accuracy"], r2["n_items"]) == (1.0, 2)
    assert (r2["wilson_lo"], r2["wilson_hi"]) == pytest.approx((0.342380, 1.0), abs=1e-6)
    # validated items only (V0): k = 1 → 0.5; distance 1 has no validated item → null with the reason
    assert got[a + "validated|1|all"]["accuracy"] == 0.5 and got[a + "validated|1|all"]["n_items"] == 1
    none = got[a + "validated|1|1"]
    assert (none["accuracy"], none["n_items"], none["null_reason"]) == (None, 0, "no_validated_items")
    # cfg-b: V0 (yes, yes) → 1, V1 empty review → 0: 0.5 over 2; only k = 1
    assert got["S|jd|peerlake|cfg-b|all|1|all"]["accuracy"] == 0.5
    assert "S|jd|peerlake|cfg-b|all|2|all" not in got
    # T sees cfg-a's first sample of V0 only: 0.5
    assert got["T|jd|peerlake|cfg-a|all|1|all"]["accuracy"] == 0.5
    # S: cfg-a 2 sets × 2 k × (all, 0, 1) = 12, cfg-b 2 × 1 × 3 = 6; T: 2 × 1 × (all, 0) = 4
    assert len(got) == 22


def test_judge_audit(built):
    db, _ = built
    got = {r["contradiction_judge_audit_id"]: r for r in rows(db, "select * from contradiction_judge_audit")}
    spec = got["S|jd|specificity|all"]
    # six (item, review of B) subjects: a-B-0 × V1 says yes once in 2 → 0.5, the other five never → 1;
    # (5 + 0.5)/6 = 0.916667; 12 answers
    assert (spec["n_subjects"], spec["n_judgments"]) == (6, 12)
    assert spec["rate"] == pytest.approx(5.5 / 6)
    assert got["S|jd|specificity|cfg-a"]["rate"] == pytest.approx(3.5 / 4)  # (1 + 0.5 + 1 + 1)/4
    assert got["S|jd|specificity|cfg-b"]["rate"] == 1
    sens = got["S|jd|sensitivity|all"]
    # verified: V0|a-0-0 (yes in repeat 0, no in 1) → 0.5, n = 1; the label "false" on V1|a-1-0 is not counted
    assert (sens["n_subjects"], sens["rate"]) == (1, 0.5)
    assert (sens["wilson_lo"], sens["wilson_hi"]) == pytest.approx((0.054621, 0.945379), abs=1e-6)
    assert got["T|jd|specificity|all"]["rate"] == 1.0 and got["T|jd|specificity|all"]["n_subjects"] == 1


def test_the_gates_pass_on_the_built_marts(built):
    db, _ = built
    for suite in ("contradiction_detection", "contradiction_judge_audit"):
        result = run_gate(suite, db)
        assert result.success, (suite, result)


def test_the_report_section_draws_one_line_per_system(built):
    from peerlake.report import contradictions
    from peerlake.report.data import load

    db, _ = built
    html = contradictions.section(load(db, study="S"), {"cfg-a": "MLR (a)"})
    assert "Contradiction detection" in html and "MLR (a)" in html and "data:image/png;base64," in html
    assert "91.7%" in html  # the audit's specificity (5.5/6)
    assert "not measured" in contradictions.section(load(db, study="nobody"), {})
