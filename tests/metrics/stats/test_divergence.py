"""KL(P ‖ Q) with ε smoothing and the focus_divergence table, on hand-worked counts (the arithmetic in
the comments; expected values are closed forms evaluated with math.log, not the function under test)."""

import math

import pandas as pd
import pytest

from peerlake.metrics.stats.divergence import focus_divergence_table, kl_divergence, smoothed


def test_kl_of_two_observed_distributions():
    # P = (3/4, 1/4), Q = (1/2, 1/2); with ε = 0: 0.75·ln(1.5) + 0.25·ln(0.5) = 0.304099 − 0.173287 = 0.130812
    exact = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    assert kl_divergence({"a": 3, "b": 1}, {"a": 1, "b": 1}, ["a", "b"], eps=0) == pytest.approx(0.130812, abs=1e-6)
    assert exact == pytest.approx(0.130812, abs=1e-6)
    # the default ε = 1e-6 moves it by ~1e-6 only
    assert kl_divergence({"a": 3, "b": 1}, {"a": 1, "b": 1}, ["a", "b"]) == pytest.approx(exact, abs=1e-5)


def test_a_label_the_system_never_uses_gives_a_large_finite_term():
    # support {a, b, c}, ε = 0.01 (large, to work by hand), K = 3, denominator 1 + 3·0.01 = 1.03
    # P = counts a 1, b 1 → shares (0.5, 0.5, 0) → p = (0.51, 0.51, 0.01) / 1.03
    # Q = counts a 2, b 0 → shares (1, 0, 0)     → q = (1.01, 0.01, 0.01) / 1.03
    # KL = 0.51/1.03·ln(0.51/1.01) + 0.51/1.03·ln(0.51/0.01) + 0.01/1.03·ln(1)
    #    = 0.495146·(−0.683296 + 3.931826) = 0.495146·3.248530 = 1.608496
    want = 0.51 / 1.03 * math.log(0.51 / 1.01) + 0.51 / 1.03 * math.log(51)
    assert want == pytest.approx(1.608496, abs=2e-6)
    assert kl_divergence({"a": 1, "b": 1}, {"a": 2}, ["a", "b", "c"], eps=0.01) == pytest.approx(want, abs=1e-12)
    # with the default ε the unused label costs 0.5·ln(0.5 / 1e-6) ≈ 6.56 nats: large, finite
    assert 6 < kl_divergence({"a": 1, "b": 1}, {"a": 2}, ["a", "b", "c"]) < 7


def test_smoothing_renormalizes_and_identical_distributions_are_zero():
    # (2/4 + 0.1) / 1.3, (2/4 + 0.1) / 1.3, 0.1 / 1.3 with ε = 0.1 over 3 labels
    assert smoothed({"a": 2, "b": 2}, ["a", "b", "c"], eps=0.1) == pytest.approx(
        {"a": 0.6 / 1.3, "b": 0.6 / 1.3, "c": 0.1 / 1.3})
    assert kl_divergence({"a": 5, "b": 1}, {"a": 10, "b": 2}, ["a", "b", "c"]) == 0.0


def test_no_counts_is_none_never_zero_and_foreign_labels_are_refused():
    assert smoothed({}, ["a", "b"]) is None
    assert kl_divergence({"a": 0}, {"a": 1}, ["a", "b"]) is None
    assert kl_divergence({"a": 1}, {}, ["a", "b"]) is None
    with pytest.raises(ValueError, match="outside the support"):
        smoothed({"z": 1}, ["a", "b"])


def _rows(study, cfg, pol, dim, counts, n_tax=1):
    return [{"study_id": study, "source": "human" if cfg == "human" else "peerlake", "reviewer_config": cfg,
             "reviewer_label": cfg, "polarity": pol, "dimension": dim, "label": label, "n_items": n,
             "n_taxonomies": n_tax} for label, n in counts.items()]


def _dist(sys_weakness_target=None, n_tax=1):
    """Study S, targets {t1, t2}, aspects {a1, a2}. Humans: strengths t1 1 / t2 1, a1 2 / a2 0;
    weaknesses t1 3 / t2 1, a1 1 / a2 1. System A: strengths t1 1 / t2 1, a1 0 / a2 2;
    weaknesses as given (default t1 1 / t2 1, a1 1 / a2 1)."""
    wt = sys_weakness_target if sys_weakness_target is not None else {"t1": 1, "t2": 1}
    wa = {"a1": 1, "a2": 1} if sum(wt.values()) else {"a1": 0, "a2": 0}
    rows = []
    rows += _rows("S", "human", "strength", "target", {"t1": 1, "t2": 1}, n_tax)
    rows += _rows("S", "human", "strength", "aspect", {"a1": 2, "a2": 0}, n_tax)
    rows += _rows("S", "human", "weakness", "target", {"t1": 3, "t2": 1}, n_tax)
    rows += _rows("S", "human", "weakness", "aspect", {"a1": 1, "a2": 1}, n_tax)
    rows += _rows("S", "A", "strength", "target", {"t1": 1, "t2": 1}, n_tax)
    rows += _rows("S", "A", "strength", "aspect", {"a1": 0, "a2": 2}, n_tax)
    rows += _rows("S", "A", "weakness", "target", wt, n_tax)
    rows += _rows("S", "A", "weakness", "aspect", wa, n_tax)
    return pd.DataFrame(rows)


def test_focus_divergence_components_and_mean():
    (row,) = focus_divergence_table(_dist(), eps=0.01).to_dict("records")
    # ε = 0.01, K = 2, denominator 1.02
    # strength·target: P = Q = (0.5, 0.5) → 0
    # strength·aspect: P = (1.01, 0.01)/1.02, Q = (0.01, 1.01)/1.02
    #   → 1.01/1.02·ln(101) + 0.01/1.02·ln(1/101) = (1.00/1.02)·ln(101) = 0.980392·4.615121 = 4.524628
    # weakness·target: P = (0.76, 0.26)/1.02, Q = (0.51, 0.51)/1.02
    #   → 0.745098·ln(1.490196) + 0.254902·ln(0.509804) = 0.745098·0.398908 − 0.254902·0.673729
    #   = 0.297225 − 0.171735 = 0.125490
    # weakness·aspect: P = Q → 0;  mean = (0 + 4.524628 + 0.125490 + 0) / 4 = 1.162530
    sa = 1.01 / 1.02 * math.log(101) + 0.01 / 1.02 * math.log(1 / 101)
    wt = 0.76 / 1.02 * math.log(0.76 / 0.51) + 0.26 / 1.02 * math.log(0.26 / 0.51)
    assert sa == pytest.approx(4.524628, abs=2e-6) and wt == pytest.approx(0.125490, abs=2e-6)
    assert row["focus_divergence_id"] == "S|A" and row["n_components"] == 4 and row["null_reason"] is None
    assert row["kl_strength_target"] == pytest.approx(0, abs=1e-12)
    assert row["kl_strength_aspect"] == pytest.approx(sa)
    assert row["kl_weakness_target"] == pytest.approx(wt)
    assert row["kl_weakness_aspect"] == pytest.approx(0, abs=1e-12)
    assert row["kl_mean"] == pytest.approx(1.162530, abs=2e-6)
    assert (row["n_items_strength"], row["n_items_weakness"], row["n_human_items_strength"],
            row["n_human_items_weakness"]) == (2, 2, 2, 4)


def test_a_system_without_weaknesses_has_no_mean_and_says_why():
    (row,) = focus_divergence_table(_dist(sys_weakness_target={"t1": 0, "t2": 0}), eps=0.01).to_dict("records")
    assert row["kl_weakness_target"] is None and row["kl_weakness_aspect"] is None
    assert row["kl_strength_aspect"] is not None and row["n_components"] == 2
    assert row["kl_mean"] is None and row["null_reason"] == "no_system_items:weakness"


def test_no_human_items_and_mixed_taxonomies_are_null_with_reasons():
    dist = _dist()
    no_humans = dist[dist["reviewer_config"] != "human"]
    (row,) = focus_divergence_table(no_humans).to_dict("records")
    assert row["kl_mean"] is None and row["n_components"] == 0
    assert row["null_reason"] == "no_human_items:strength;no_human_items:weakness"
    (row,) = focus_divergence_table(_dist(n_tax=2)).to_dict("records")
    assert row["kl_mean"] is None and row["null_reason"] == "mixed_taxonomies"
    # a study without any system rows has no divergence row at all
    assert focus_divergence_table(dist[dist["reviewer_config"] == "human"]).empty
