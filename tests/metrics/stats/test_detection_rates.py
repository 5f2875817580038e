"""Any-of-k detection rates and the judge audit on hand-made judgments, every expected number worked out
by hand in the comments (Wilson bounds from the formula with z = 1.959964, written out below)."""

import pandas as pd
import pytest

from peerlake.metrics.stats.detection import audit_table, detection_table, ensemble_rate

T, F, U = True, False, None  # U: undecided (an unparseable judge answer)


def test_any_of_k_per_repeat():
    # s0 says yes in repeat 0, s1 in repeat 1: one review finds it half the time, two always
    reviews = [{0: T, 1: F}, {0: F, 1: T}]
    assert ensemble_rate(reviews, 1) == 0.5 and ensemble_rate(reviews, 2) == 1.0
    assert ensemble_rate(reviews, 3) is None  # only two reviews
    # repeat 0: undecided + yes → yes; repeat 1: both undecided → left out; so 1/1
    assert ensemble_rate([{0: U, 1: U}, {0: T, 1: U}], 2) == 1.0
    # a no beside an undecided is undecided (the undecided one might have said yes)
    assert ensemble_rate([{0: F}, {0: U}], 2) is None
    assert ensemble_rate([{0: F, 1: F}], 1) == 0.0


def rows(*specs):
    """(study, config, variant, distance, validated, review_key, sample, {repeat: answer})."""
    out = []
    for study, config, variant, distance, validated, review, sample, answers in specs:
        for r, a in answers.items():
            out.append({"study_id": study, "judge_config": "jc", "source": "peerlake", "reviewer_config": config,
                        "variant_id": variant, "distance": distance, "is_validated": validated, "review_key": review,
                        "sample_index": sample, "repeat_index": r, "identified": a})
    return pd.DataFrame(out).astype({"identified": "boolean", "is_validated": "boolean"})


@pytest.fixture
def detections():
    return rows(
        ("S", "cfg-a", "V1", 0, True, "a1-s1", 1, {0: F, 1: T}),  # listed first, but sample 1
        ("S", "cfg-a", "V1", 0, True, "a1-s0", 0, {0: T, 1: F}),
        ("S", "cfg-a", "V2", 0, None, "a2-s0", 0, {0: F, 1: F}),  # never validated
        ("S", "cfg-a", "V3", 1, True, "a3-s0", 0, {0: U, 1: U}),
        ("S", "cfg-a", "V3", 1, True, "a3-s1", 1, {0: T, 1: U}),
        ("S", "cfg-b", "V1", 0, True, "b1-s0", 0, {0: T}),
    )


def test_accuracy_per_k_distance_and_item_set(detections):
    got = detection_table(detections).set_index("contradiction_detection_id")
    a = "S|jc|peerlake|cfg-a|"
    # k = 1 (first review by sample): V1 0.5 (yes, no), V2 0.0, V3 undecided → (0.5 + 0)/2 = 0.25, n = 2;
    # Wilson(0.25, 2): centre = (0.25 + z²/4)/(1 + z²/2) = 1.210365/2.920730 = 0.414406,
    # half = z/(1 + z²/2)·sqrt(0.25·0.75/2 + z²/16) = 0.671049·0.577877 = 0.387785 → 0.026677, 0.802133
    r = got.loc[a + "all|1|all"]
    assert (r.n_items, r.n_items_measured, r.n_items_undecided, r.accuracy) == (3, 2, 1, 0.25)
    assert (r.wilson_lo, r.wilson_hi) == pytest.approx((0.026677, 0.802133), abs=1e-6)
    assert got.loc[a + "all|1|0"].accuracy == 0.25 and got.loc[a + "all|1|0"].n_items == 2
    d1 = got.loc[a + "all|1|1"]
    assert (d1.n_items, d1.null_reason) == (1, "no_decided_judgments")
    assert pd.isna(d1.accuracy) and pd.isna(d1.wilson_lo)
    # k = 2: V1 (1, 1) → 1.0, V3 (yes; undecided) → 1.0, V2 has one review → out: 1.0, n = 2
    # Wilson(1, 2): centre = (1 + z²/4)/(1 + z²/2), half = z/(1 + z²/2)·z/4 = z²/(4(1 + z²/2))
    # → hi = 1 exactly, lo = 1/(1 + z²/2) = 1/2.920730 = 0.342380
    r2 = got.loc[a + "all|2|all"]
    assert (r2.n_items, r2.accuracy) == (2, 1.0) and pd.isna(r2.distance_value)
    assert (r2.wilson_lo, r2.wilson_hi) == pytest.approx((0.342380, 1.0), abs=1e-6)
    assert got.loc[a + "all|2|0"].distance_value == 0 and got.loc[a + "all|2|0"].n_items == 1
    # validated only: V1 and V3; k = 1 → V1 0.5, V3 undecided → 0.5 over n = 1
    v = got.loc[a + "validated|1|all"]
    assert (v.n_items, v.n_items_measured, v.accuracy) == (2, 1, 0.5)
    # cfg-b: one item, one repeat, yes → 1.0; Wilson(1, 1) lo = 1/(1 + z²) = 1/4.841459 = 0.206549
    b = got.loc["S|jc|peerlake|cfg-b|all|1|all"]
    assert (b.accuracy, b.n_items) == (1.0, 1) and b.wilson_lo == pytest.approx(0.206549, abs=1e-6)
    # rows: cfg-a 2 sets × 2 k × 3 distances (all, 0, 1) = 12; cfg-b 2 × 1 × 2 (all, 0) = 4
    assert len(got) == 16
    vb = got.loc["S|jc|peerlake|cfg-b|validated|1|all"]
    assert vb.accuracy == 1.0 and pd.isna(vb.null_reason)


def test_no_validated_item_is_null_with_its_reason():
    frame = rows(("S", "cfg-a", "V2", 0, False, "a2-s0", 0, {0: T}))
    got = detection_table(frame).set_index("contradiction_detection_id")
    none = got.loc["S|jc|peerlake|cfg-a|validated|1|all"]
    assert (none.n_items, none.null_reason) == (0, "no_validated_items") and pd.isna(none.accuracy)
    assert got.loc["S|jc|peerlake|cfg-a|all|1|all"].accuracy == 1.0


def audit_rows(*specs):
    """(study, config, role, subject, verified, {repeat: answer})."""
    out = [{"study_id": study, "judge_config": "jc", "role": role, "reviewer_config": config, "subject_key": subject,
            "verified_identified": verified, "repeat_index": r, "identified": a}
           for study, config, role, subject, verified, answers in specs for r, a in answers.items()]
    return pd.DataFrame(out).astype({"identified": "boolean", "verified_identified": "boolean"})


def test_specificity_and_sensitivity():
    frame = audit_rows(
        ("S", "cfg-a", "audit", "V1|base-a", None, {0: F, 1: F}),  # right twice: 1.0
        ("S", "cfg-a", "audit", "V2|base-a", None, {0: T, 1: F}),  # right once: 0.5
        ("S", "cfg-b", "audit", "V1|base-b", None, {0: U}),  # undecided
        ("S", "cfg-a", "detection", "V1|s0", True, {0: T, 1: F}),  # verified found; judge agrees once: 0.5
        ("S", "cfg-a", "detection", "V1|s1", False, {0: T}),  # verified NOT found: not in sensitivity
        ("S", "cfg-a", "detection", "V2|s0", None, {0: T}),  # not labelled
        ("T", "cfg-a", "detection", "V9|s0", None, {0: F}),  # study T: no audit, no labels
    )
    got = audit_table(frame).set_index("contradiction_judge_audit_id")
    spec = got.loc["S|jc|specificity|all"]
    # (1.0 + 0.5)/2 = 0.75 over n = 2 measured subjects of 3; 4 decided answers;
    # Wilson(0.75, 2): lo = 1 − 0.802133 = 0.197867, hi = 1 − 0.026677 = 0.973323 (mirror of 0.25)
    assert (spec.n_subjects, spec.n_subjects_measured, spec.n_judgments, spec.rate) == (3, 2, 4, 0.75)
    assert (spec.wilson_lo, spec.wilson_hi) == pytest.approx((0.197867, 0.973323), abs=1e-6)
    assert got.loc["S|jc|specificity|cfg-a"].rate == 0.75
    b = got.loc["S|jc|specificity|cfg-b"]
    assert (b.n_subjects, b.null_reason) == (1, "no_decided_judgments") and pd.isna(b.rate)
    sens = got.loc["S|jc|sensitivity|all"]
    # one verified subject, yes in 1 of 2 repeats: 0.5, n = 1; Wilson(0.5, 1) is symmetric:
    # centre 0.5, half = z/(1 + z²)·sqrt(0.25 + z²/4) = 0.404828·1.104487 = 0.447129... → 0.054621, 0.945379
    assert (sens.n_subjects, sens.rate) == (1, 0.5)
    assert (sens.wilson_lo, sens.wilson_hi) == pytest.approx((0.054621, 0.945379), abs=1e-6)
    t_spec, t_sens = got.loc["T|jc|specificity|all"], got.loc["T|jc|sensitivity|all"]
    assert (t_spec.n_subjects, t_spec.null_reason) == (0, "no_audit_judgments") and pd.isna(t_spec.rate)
    assert (t_sens.n_subjects, t_sens.null_reason) == (0, "no_verified_labels")
    assert "T|jc|specificity|cfg-a" not in got.index  # only 'all' says "not measured"


def test_empty_inputs_give_empty_tables_with_their_columns():
    from peerlake.metrics.stats.detection import AUDIT_COLUMNS, DETECTION_COLUMNS

    empty = rows(("S", "cfg-a", "V1", 0, True, "a", 0, {0: T})).iloc[:0]
    assert list(detection_table(empty).columns) == list(DETECTION_COLUMNS) and detection_table(empty).empty
    empty_audit = audit_rows(("S", "cfg-a", "audit", "V1|b", None, {0: F})).iloc[:0]
    assert list(audit_table(empty_audit).columns) == list(AUDIT_COLUMNS) and audit_table(empty_audit).empty


def test_an_item_without_a_distance_counts_in_all_only():
    frame = rows(("S", "cfg-a", "V1", 0, True, "a", 0, {0: T}), ("S", "cfg-a", "V2", None, True, "b", 0, {0: F}))
    got = detection_table(frame).set_index("contradiction_detection_id")
    # all: (1 + 0)/2 = 0.5 over 2 items; distance 0: V1 only
    assert got.loc["S|jc|peerlake|cfg-a|all|1|all"].accuracy == 0.5
    assert got.loc["S|jc|peerlake|cfg-a|all|1|0"].n_items == 1 and len(got) == 4  # 2 sets × (all, 0)
