"""The revision marts' table functions (metrics.revision) on contract-shaped frames (revision_frames.py here
says what is in them); expected numbers worked by hand in the comments."""

import hashlib
import math

import numpy as np
import pytest

from peerlake.metrics.revision.agreement import DIRECTION_COLUMNS, NOISE_COLUMNS, directions_table, noise_adjusted_table
from peerlake.metrics.revision.gains import CELL_COLUMNS, GAP_COLUMNS, cells_table, gains_table, scorer_gaps_table
from peerlake.metrics.revision.outcomes import (
    AGREEMENT_COLUMNS,
    CASE_COLUMNS,
    VALIDATION_COLUMNS,
    cases_table,
    selector_agreement_table,
    validation_table,
)
from tests.metrics.revision import revision_frames as f

BOOT = {"n_resamples": 40, "seed": 7}


@pytest.fixture(scope="module")
def gains():
    return gains_table(f.scores())


def _by(frame, key):
    return {r[key]: r for r in frame.to_dict("records")}


def _pct(values, q):
    """numpy's default (linear) percentile, written out."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    return v[lo] + (pos - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])


def _interval_by_hand(per_paper):
    """The documented draw for 4 papers: 40 rows of default_rng(7).integers(0, 4, 4), row means, 2.5/97.5 %."""
    rng = np.random.default_rng(7)
    means = [sum(per_paper[i] for i in row) / 4 for row in rng.integers(0, 4, size=(40, 4))]
    return _pct(means, 0.025), _pct(means, 0.975)


def test_gains_per_paper(gains):
    g = _by(gains, "revision_gain_id")
    assert len(gains) == 5 + 4 * 3
    p1 = g["S|LLL|P1"]
    # original [5,5,5], final [5,6,7]: sums 15 → 18, gain +1; S²_o = 0, S²_v = 1 → e_Δ = 1/3
    assert (p1["sum_original"], p1["sum_final"], p1["gain"], p1["direction"]) == (15, 18, 1.0, 1)
    assert p1["noise_var_gain"] == pytest.approx(1 / 3) and p1["gain_noise_sd"] == pytest.approx(math.sqrt(1 / 3))
    assert (p1["venue_year"], p1["final_paper_id"], p1["scorer_model"]) == ("ICLR 2025", "P1~rev-LL", "local/qwen-1.5b")
    p5 = g["S|LLL|P5"]  # one final score unparsed
    assert (p5["is_complete"], p5["n_original_scores"], p5["n_final_scores"]) == (False, 3, 2)
    assert p5["gain"] is None or math.isnan(p5["gain"])
    assert g["S|LHH|P4"]["direction"] == -1 and g["S|LLH|P1"]["direction"] == 0


def test_cells_means_counts_and_the_shared_draw(gains):
    c = _by(cells_table(gains, f.cells(), f.outcomes(), **BOOT), "revision_cell_id")
    assert len(c) == 5 + 4 + 4  # 'all' for the 5 declared cells; each venue-year for the 4 scored ones
    lll = c["S|LLL|all"]
    # gains P1..P4 = 1, 1, 0, 2 → mean 1; P5 dropped (incomplete); directions + + 0 +
    assert (lll["n_papers"], lll["mean_gain"], lll["n_papers_dropped_incomplete"]) == (4, 1.0, 1)
    assert (lll["n_positive"], lll["n_zero"], lll["n_negative"], lll["n_papers_blocked"]) == (3, 1, 0, 0)
    assert (lll["ci_low"], lll["ci_high"]) == pytest.approx(_interval_by_hand([1, 1, 0, 2]))
    assert lll["mean_gain_noise_sd"] == pytest.approx(math.sqrt(1 / 3) / 4)  # only P1 has noise
    assert (lll["n_resamples"], lll["bootstrap_seed"], lll["repeats"]) == (40, 7, 3)
    assert (c["S|LLH|all"]["mean_gain"], c["S|LHL|all"]["mean_gain"], c["S|LHH|all"]["mean_gain"]) == (-0.5, 1.25,
                                                                                                        -0.5)
    assert c["S|LHL|all"]["n_papers_blocked"] == 1 and c["S|LHL|ICLR 2025"]["n_papers_blocked"] == 1
    assert c["S|LHL|ICLR 2026"]["n_papers_blocked"] == 0
    # 2025: LLL gains P1, P2 = 1, 1 → constant, interval (1, 1); 2026: P3, P4 = 0, 2, P5 dropped
    assert (c["S|LLL|ICLR 2025"]["ci_low"], c["S|LLL|ICLR 2025"]["ci_high"]) == (1.0, 1.0)
    assert (c["S|LLL|ICLR 2026"]["n_papers"], c["S|LLL|ICLR 2026"]["n_papers_dropped_incomplete"]) == (2, 1)
    llx = c["S|LLX|all"]  # declared, never scored
    assert llx["n_papers"] == 0 and math.isnan(llx["mean_gain"]) and llx["scorer_model"] == "local/x"


def test_scorer_gaps_and_their_change_when_the_selector_changes(gains):
    g = _by(scorer_gaps_table(gains, **BOOT), "revision_scorer_gap_id")
    assert len(g) == 3 * 3  # per group (all, 2025, 2026): LLL − LLH, LHL − LHH and the change
    gap = g["S|all|LLL - LLH"]
    # per paper LLL − LLH = (1−0, 1+1, 0+1, 2−0) = 1, 2, 1, 2 → 1.5
    assert (gap["quantity"], gap["scorer_a"], gap["scorer_b"], gap["n_papers"], gap["estimate"]) == (
        "gap", "L", "H", 4, 1.5)
    assert (gap["ci_low"], gap["ci_high"]) == pytest.approx(_interval_by_hand([1, 2, 1, 2]))
    # LHL − LHH = (2+1, 1−0, 1−0, 1+1) = 3, 1, 1, 2 → 1.75
    assert g["S|all|LHL - LHH"]["estimate"] == 1.75
    change = g["S|all|(LHL - LHH) - (LLL - LLH)"]
    # (3, 1, 1, 2) − (1, 2, 1, 2) = 2, −1, 0, 0 → 0.25, from the same draw as the cells
    assert (change["quantity"], change["selector_from"], change["selector_to"], change["estimate"]) == (
        "gap_change", "L", "H", 0.25)
    assert (change["ci_low"], change["ci_high"]) == pytest.approx(_interval_by_hand([2, -1, 0, 0]))
    # 2025 (P1, P2): change (3 − 1, 1 − 2) = 2, −1 → 0.5; 2026 (P3, P4): (1 − 1, 2 − 2) → 0, a constant interval
    assert g["S|ICLR 2025|(LHL - LHH) - (LLL - LLH)"]["estimate"] == 0.5
    c26 = g["S|ICLR 2026|(LHL - LHH) - (LLL - LLH)"]
    assert (c26["estimate"], c26["ci_low"], c26["ci_high"], c26["n_papers"]) == (0.0, 0.0, 0.0, 2)


def test_direction_tables(gains):
    d = _by(directions_table(gains), "revision_direction_id")
    ll = d["S|LL|L|H"]
    # (x = LLL, y = LLH): P1 (+, 0), P2 (+, −), P3 (0, −), P4 (+, 0)
    assert (ll["n_pos_zero"], ll["n_pos_neg"], ll["n_zero_neg"], ll["n_papers"]) == (2, 1, 1, 4)
    assert sum(ll[c] for c in ("n_pos_pos", "n_zero_pos", "n_zero_zero", "n_neg_pos", "n_neg_zero",
                               "n_neg_neg")) == 0
    assert (ll["n_same"], ll["n_reversal"], ll["n_any_zero"]) == (0, 1, 3)
    assert (ll["share_reversal"], ll["share_any_zero"]) == (0.25, 0.75)
    # gains x 1, 1, 0, 2 and y 0, −1, −1, 0: Σdxdy = 1, Σdx² = 2, Σdy² = 1 → r = 1/√2
    assert ll["pearson_gains"] == pytest.approx(1 / math.sqrt(2))
    assert (ll["mean_gain_x"], ll["mean_gain_y"], ll["mean_difference"]) == (1.0, -0.5, 1.5)
    assert (ll["gain_noise_sd_x"], ll["gain_noise_sd_y"]) == (pytest.approx(math.sqrt(1 / 3) / 4), 0.0)
    lh = d["S|LH|L|H"]  # x 2, 1, 1, 1 (all +); y −1, 0, 0, −1
    assert (lh["n_pos_neg"], lh["n_pos_zero"], lh["n_reversal"], lh["cell_x"], lh["cell_y"]) == (2, 2, 2, "LHL", "LHH")


def test_noise_adjusted_correlations(gains):
    n = _by(noise_adjusted_table(gains, **BOOT), "revision_noise_adjusted_id")
    assert sorted(n) == ["S|gains|LH|L|H", "S|gains|LL|L|H", "S|original_means|-|L|H"]
    ll = n["S|gains|LL|L|H"]
    # x = 1, 1, 0, 2: v_x = 2/3; e_x = mean(1/3, 0, 0, 0) = 1/12; y = 0, −1, −1, 0: v_y = 1/3, e_y = 0; c = 1/3
    # ρ_adj = (1/3)/sqrt((2/3 − 1/12)·(1/3)) = (1/3)/sqrt(7/36) = 2/sqrt(7) = 0.755929
    assert (ll["v_x"], ll["v_y"], ll["e_x"], ll["e_y"], ll["covariance"]) == pytest.approx((2 / 3, 1 / 3, 1 / 12, 0,
                                                                                             1 / 3))
    assert ll["rho_adj"] == pytest.approx(2 / math.sqrt(7)) and ll["r_observed"] == pytest.approx(1 / math.sqrt(2))
    assert ll["n_resamples"] == 40 and ll["n_undefined"] + ll["n_out_of_range"] <= 40
    # LH: x 2, 1, 1, 1 (v 1/4), y −1, 0, 0, −1 (v 1/3), c = −1/6, no noise: ρ_adj = r = −(1/6)/sqrt(1/12) = −1/√3
    assert n["S|gains|LH|L|H"]["rho_adj"] == pytest.approx(-1 / math.sqrt(3))
    # originals: L 5, 4, 6, 5 and H 5, 5, 5, 4: Σdxdy = 0 → ρ_adj = 0
    orig = n["S|original_means|-|L|H"]
    assert orig["rho_adj"] == pytest.approx(0) and orig["n_papers"] == 4 and orig["null_reason"] is None


def test_selector_agreement():
    a = _by(selector_agreement_table(f.outcomes()), "revision_selector_agreement_id")["S|L|L|H"]
    # P1 {d1,d2} vs {d2,d3}: J 1/3; P2 {d1} both: 1; P3 nothing both: 1; P4 {d1} vs {}: 0 → 7/12; P6 blocked in LH
    assert (a["n_papers"], a["n_papers_blocked"], a["n_papers_candidates_differ"]) == (4, 1, 0)
    assert (a["n_candidates"], a["n_accepted_a"], a["n_accepted_b"], a["n_both_accept"]) == (6, 4, 3, 2)
    assert (a["n_decisions_differ"], a["n_both_reject"], a["n_identical_papers"]) == (3, 1, 2)
    assert a["mean_jaccard"] == pytest.approx(7 / 12) and a["n_papers_decisions_differ"] == 2


def test_validation_counts():
    v = _by(validation_table(f.outcomes()), "revision_validation_id")
    ll, lh = v["S|LL"], v["S|LH"]
    # LL: P1, P2, P3, P4, P6 all ok; candidates 3+1+0+2+1 = 7; accepted 2+1+0+1+1 = 5; images 2 each
    assert (ll["n_papers"], ll["n_ok"], ll["n_blocked"], ll["blocked_reasons"]) == (5, 5, 0, None)
    assert (ll["n_candidates"], ll["n_edited_blocks"], ll["n_image_entries"], ll["n_images_rehashed"]) == (7, 5, 10,
                                                                                                          10)
    # LH: P6 blocked; edited blocks over the 4 ok papers 2+1+0+0 = 3, image entries 8; re-hashed on all 5
    assert (lh["n_ok"], lh["n_blocked"], lh["blocked_reasons"], lh["failed_checks"]) == (
        4, 1, "image_hash_mismatch=1", "image_hashes=1")
    assert (lh["n_edited_blocks"], lh["n_image_entries"], lh["n_images_rehashed"], lh["n_reasons_truncated"]) == (
        3, 8, 10, 1)
    assert lh["n_papers_failing_checks"] == 1


def test_cases_by_the_fixed_rule(gains):
    c = _by(cases_table(gains, f.outcomes()), "revision_case_id")
    assert len(c) == 2 * 6  # LL and LH × six strata, empty ones kept
    assert c["S|LL|L|H|x+/y+"]["n_papers_in_stratum"] == 0 and c["S|LL|L|H|x+/y+"]["paper_id"] is None
    p2 = c["S|LL|L|H|x+/y-"]  # P2 alone; its only block is short: the first accepted is shown
    assert (p2["paper_id"], p2["diff_id"], p2["block_rule"], p2["original_text"]) == ("P2", "d1", "first_accepted",
                                                                                      "short")
    zero = c["S|LL|L|H|any_zero"]  # P1, P3, P4: the smallest SHA-256 of the id
    first = min(["P1", "P3", "P4"], key=lambda p: hashlib.sha256(p.encode()).hexdigest())
    assert (zero["n_papers_in_stratum"], zero["paper_id"]) == (3, first)
    # P1 accepted d1 (page 2) and d2 (page 1), both 88 / 97 characters normalised: d2 comes first; P4 accepted d1 only
    expected = {"P1": ("d2", "length_70_750"), "P4": ("d1", "length_70_750"), "P3": (None, None)}[first]
    assert (zero["diff_id"], zero["block_rule"]) == expected
    assert len(f.LONG.strip()) == 88 and c["S|LL|L|H|x+/y0"]["n_papers_in_stratum"] == 2


@pytest.mark.parametrize("build,columns", [
    (lambda: gains_table(f.empty(f.scores())), None),
    (lambda: cells_table(gains_table(f.empty(f.scores())), f.empty(f.cells()), f.empty(f.outcomes()), **BOOT),
     CELL_COLUMNS),
    (lambda: scorer_gaps_table(gains_table(f.empty(f.scores())), **BOOT), GAP_COLUMNS),
    (lambda: directions_table(gains_table(f.empty(f.scores()))), DIRECTION_COLUMNS),
    (lambda: noise_adjusted_table(gains_table(f.empty(f.scores())), **BOOT), NOISE_COLUMNS),
    (lambda: selector_agreement_table(f.empty(f.outcomes())), AGREEMENT_COLUMNS),
    (lambda: validation_table(f.empty(f.outcomes())), VALIDATION_COLUMNS),
    (lambda: cases_table(gains_table(f.empty(f.scores())), f.empty(f.outcomes())), CASE_COLUMNS),
])
def test_every_table_is_empty_on_empty_input(build, columns):
    out = build()
    assert out.empty
    if columns:
        assert list(out.columns) == list(columns)


def test_the_gates_pass_on_the_fixture_tables(gains):
    from peerlake.expectations.gates import validate_frame

    tables = {"revision_gains": gains,
              "revision_cells": cells_table(gains, f.cells(), f.outcomes(), **BOOT),
              "revision_scorer_gaps": scorer_gaps_table(gains, **BOOT),
              "revision_directions": directions_table(gains),
              "revision_noise_adjusted": noise_adjusted_table(gains, **BOOT),
              "revision_selector_agreement": selector_agreement_table(f.outcomes()),
              "revision_validation": validation_table(f.outcomes())}
    for name, frame in tables.items():
        result = validate_frame(name, frame)
        assert result.success and result.statistics["rows"] == len(frame) > 0, result.describe()
