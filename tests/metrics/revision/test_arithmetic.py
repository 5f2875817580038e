"""The revision crossover's arithmetic (metrics.revision.arithmetic) against numbers worked by hand, and the seed's
S30/S31 direction tables (seed-001 §2.7) and S28 Selector counts (§2.6) as fixtures."""

import math

import numpy as np
import pytest

from peerlake.metrics.revision.arithmetic import (
    STRATA,
    case_order,
    direction_table,
    jaccard,
    letter_pairs,
    mean_gain_noise_sd,
    mean_with_ci,
    noise_adjusted_correlation,
    paper_gains,
    pearson,
    pick_block,
    selector_agreement,
    strata,
)

# Scores giving each direction with original [5, 5, 5] (sum 15): + → sum 16, 0 → sum 15 (other scores), − → 14.
ORIGINAL = [5, 5, 5]
FINAL = {1: [6, 5, 5], 0: [4, 5, 6], -1: [5, 4, 5]}

# seed S30: rows Luna (x) +, 0, −; columns Haiku (y) +, 0, −.
S30 = {
    "LL": [[27, 47, 46], [5, 10, 39], [0, 6, 19]],
    "LH": [[27, 44, 58], [1, 13, 27], [3, 6, 20]],
    "HH": [[31, 47, 18], [21, 46, 17], [5, 9, 5]],
}
# seed S31 counts (same incl. both 0, strict reversal, at least one 0) and their percentages.
S31 = {"LL": (56, 46, 107, 28.1, 23.1, 53.8), "LH": (60, 61, 91, 30.2, 30.7, 45.7),
       "HH": (82, 23, 140, 41.2, 11.6, 70.4)}
# Table 7's last column, derived from the S30 marginals: (x cell, its +/0/−), (y cell, its +/0/−).
TABLE7 = {"LL": (("LLL", (120, 54, 25)), ("LLH", (32, 63, 104))),
          "LH": (("LHL", (129, 41, 29)), ("LHH", (31, 63, 105))),
          "HH": (("HHL", (96, 84, 19)), ("HHH", (57, 102, 40)))}


def _papers_for(table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-paper (original, final under x, final under y) scores reproducing a 3×3 table."""
    orig, fx, fy = [], [], []
    for a, row in zip((1, 0, -1), table, strict=True):
        for b, count in zip((1, 0, -1), row, strict=True):
            for _ in range(count):
                orig.append(ORIGINAL)
                fx.append(FINAL[a])
                fy.append(FINAL[b])
    return np.array(orig), np.array(fx), np.array(fy)


def test_gain_direction_and_noise_worked_by_hand():
    # original [4, 5, 6]: mean 5, S² = (1 + 0 + 1)/2 = 1; final [6, 6, 9]: mean 7, S² = (1 + 1 + 4)/2 = 3
    # gain = 7 − 5 = 2, direction + (sum 21 > 15); e_o = 1/3; e_Δ = (1 + 3)/3 = 4/3.
    # Second paper: [3, 3, 4] → [4, 3, 3]: equal sums (10), gain 0, direction 0; S² both 1/3, e_Δ = (2/3)/3 = 2/9.
    g = paper_gains([[4, 5, 6], [3, 3, 4]], [[6, 6, 9], [4, 3, 3]])
    assert g.gain.tolist() == pytest.approx([2.0, 0.0])
    assert g.direction.tolist() == [1, 0]
    assert g.mean_original.tolist() == pytest.approx([5.0, 10 / 3])
    assert g.noise_var_original.tolist() == pytest.approx([1 / 3, 1 / 9])
    assert g.noise_var_gain.tolist() == pytest.approx([4 / 3, 2 / 9])
    # gain-noise SD: per paper sqrt(e_Δ), then the mean: (sqrt(4/3) + sqrt(2/9))/2 = (1.154701 + 0.471405)/2
    assert mean_gain_noise_sd(g.noise_var_gain) == pytest.approx((1.1547005 + 0.4714045) / 2, abs=1e-6)
    assert math.isnan(mean_gain_noise_sd([]))


def test_direction_comes_from_integer_sums_and_needs_whole_equal_sides():
    # A negative gain of one point over three scores: −1/3, never rounded to 0.
    assert paper_gains([[7, 7, 7]], [[7, 7, 6]]).direction.tolist() == [-1]
    with pytest.raises(ValueError, match="one shape"):
        paper_gains([[5, 5, 5]], [[5, 5]])
    with pytest.raises(ValueError, match="whole numbers"):
        paper_gains([[5, 5, 5.5]], [[5, 5, 5]])
    with pytest.raises(ValueError, match="whole numbers"):
        paper_gains([[5, 5, np.nan]], [[5, 5, 5]])
    one = paper_gains([[5]], [[6]])  # one score per side: a gain, but no noise variance
    assert one.gain.tolist() == [1.0] and math.isnan(one.noise_var_gain[0])
    empty = paper_gains(np.empty((0, 3)), np.empty((0, 3)))
    assert empty.gain.size == 0 and empty.noise_var_gain.size == 0


@pytest.mark.parametrize("ws", sorted(S30))
def test_the_seed_direction_tables_shares_and_marginals(ws):
    orig, fx, fy = _papers_for(S30[ws])
    gx, gy = paper_gains(orig, fx), paper_gains(orig, fy)
    d = direction_table(gx.direction, gy.direction)
    assert d.table.tolist() == S30[ws]
    assert d.n_papers == 199 == d.table.sum()
    same, rev, zero, p_same, p_rev, p_zero = S31[ws]
    assert (d.n_same, d.n_reversal, d.n_any_zero) == (same, rev, zero)
    assert round(100 * d.share(d.n_same), 1) == p_same
    assert round(100 * d.share(d.n_reversal), 1) == p_rev
    assert round(100 * d.share(d.n_any_zero), 1) == p_zero
    (_, x_counts), (_, y_counts) = TABLE7[ws]
    assert tuple(d.table.sum(axis=1)) == x_counts  # Scorer x's +/0/− over the 199 papers
    assert tuple(d.table.sum(axis=0)) == y_counts


def test_the_seed_ll_figures_by_hand():
    # LL: same = 27 + 10 + 19 = 56 → 56/199 = 28.14 %; reversal = 46 + 0 = 46 → 23.12 %;
    # at least one 0 = 47 + 5 + 10 + 39 + 6 = 107 → 53.77 %. Both-0 papers (10) are in "same" and in "zero".
    orig, fx, fy = _papers_for(S30["LL"])
    d = direction_table(paper_gains(orig, fx).direction, paper_gains(orig, fy).direction)
    assert d.share(d.n_same) == pytest.approx(56 / 199)
    assert d.n_same + d.n_reversal + d.n_any_zero - d.table[1, 1] == 199


def test_case_strata_sizes_match_the_seed():
    # seed F.6: LL strata x+/y− 46, both + 27, both − 19, x−/y+ 0, at least one 0: 107; HH x+/y0 47.
    def sizes(ws):
        orig, fx, fy = _papers_for(S30[ws])
        out = dict.fromkeys(STRATA, 0)
        for a, b in zip(paper_gains(orig, fx).direction, paper_gains(orig, fy).direction, strict=True):
            for name in strata(int(a), int(b)):
                out[name] += 1
        return out
    ll = sizes("LL")
    assert [ll[s] for s in ("x+/y-", "x+/y+", "x-/y-", "x-/y+", "any_zero")] == [46, 27, 19, 0, 107]
    assert sizes("HH")["x+/y0"] == 47


def test_direction_table_refuses_bad_input_and_empty_shares_are_nan():
    with pytest.raises(ValueError):
        direction_table([1, 2], [0, 0])
    with pytest.raises(ValueError):
        direction_table([1], [0, 0])
    d = direction_table([], [])
    assert d.n_papers == 0 and d.table.sum() == 0 and math.isnan(d.share(0))


def test_pearson_by_hand_and_its_null_paths():
    # x = 1, 2, 3, 4; y = 2, 1, 4, 3: Σdxdy = 0.75·4 = 3, Σdx² = Σdy² = 5 → r = 3/5
    assert pearson([1, 2, 3, 4], [2, 1, 4, 3]) == pytest.approx(0.6)
    assert math.isnan(pearson([1, 2], [2, 1]))  # two papers
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))  # constant side


def test_mean_with_ci_on_a_given_draw_by_hand():
    values = [1.0, 2.0, np.nan, 4.0]
    idx = np.array([[0, 1, 2, 3], [0, 0, 1, 1], [3, 3, 3, 2]])
    # Row means over drawn papers with a value: (1 + 2 + 4)/3 = 7/3, (1 + 1 + 2 + 2)/4 = 1.5, 12/3 = 4.
    # Sorted 1.5, 7/3, 4; 2.5th percentile at position 0.05 → 1.5 + 0.05·(7/3 − 1.5) = 1.541667;
    # 97.5th at 1.95 → 7/3 + 0.95·(4 − 7/3) = 3.916667.
    n, mean, lo, hi = mean_with_ci(values, idx)
    assert (n, mean) == (3, pytest.approx(7 / 3))
    assert (lo, hi) == (pytest.approx(1.5 + 0.05 * (7 / 3 - 1.5)), pytest.approx(7 / 3 + 0.95 * (4 - 7 / 3)))
    assert mean_with_ci([0.1, 0.1, 0.1], idx[:, :3]) == (3, pytest.approx(0.1), pytest.approx(0.1),
                                                          pytest.approx(0.1))
    n, mean, lo, hi = mean_with_ci([np.nan], None)
    assert n == 0 and all(math.isnan(v) for v in (mean, lo, hi))


def test_noise_adjusted_correlation_by_hand():
    x, y = [1, 2, 3, 4], [2, 1, 4, 3]
    ex, ey = [0.1] * 4, [0.3] * 4
    # v_x = v_y = 5/3 (n − 1 = 3), c = 3/3 = 1, r = 0.6; e_x = 0.1, e_y = 0.3
    # ρ_adj = 1/sqrt((5/3 − 0.1)(5/3 − 0.3)) = 1/sqrt(1.566667 · 1.366667) = 1/1.463254 = 0.683409
    rho = 1 / math.sqrt((5 / 3 - 0.1) * (5 / 3 - 0.3))
    assert rho == pytest.approx(0.683409, abs=1e-6)
    # Draw: row 0 takes paper 0 four times (v = 0 → undefined); rows 1 and 2 are permutations (same ρ_adj).
    idx = np.array([[0, 0, 0, 0], [0, 1, 2, 3], [3, 2, 1, 0]])
    r = noise_adjusted_correlation(x, y, ex, ey, idx)
    assert (r.v_x, r.v_y, r.c, r.e_x, r.e_y) == pytest.approx((5 / 3, 5 / 3, 1.0, 0.1, 0.3))
    assert (r.r_observed, r.rho_adj) == (pytest.approx(0.6), pytest.approx(rho))
    assert (r.n_resamples, r.n_undefined, r.n_out_of_range) == (3, 1, 0)
    assert (r.ci_low, r.ci_high) == (pytest.approx(rho), pytest.approx(rho))


def test_noise_adjusted_out_of_range_is_kept_and_counted_and_undefined_is_nan():
    x, y = [1, 2, 3, 4], [2, 1, 4, 3]
    # e = 1.6 each: ρ_adj = 1/(5/3 − 1.6) = 1/(1/15) = 15, not clipped
    r = noise_adjusted_correlation(x, y, [1.6] * 4, [1.6] * 4, np.array([[0, 1, 2, 3], [1, 0, 3, 2]]))
    assert r.rho_adj == pytest.approx(15.0) and r.n_out_of_range == 2 and r.ci_high == pytest.approx(15.0)
    # e_x = 2 > v_x = 5/3: the adjusted variance is negative, ρ_adj undefined (nan), every resample undefined
    r = noise_adjusted_correlation(x, y, [2.0] * 4, [0.1] * 4, np.array([[0, 1, 2, 3]]))
    assert math.isnan(r.rho_adj) and r.n_undefined == 1 and math.isnan(r.ci_low)
    few = noise_adjusted_correlation([1, 2], [2, 1], [0, 0], [0, 0], None)
    assert few.n_papers == 2 and math.isnan(few.rho_adj) and few.n_resamples == 0
    with pytest.raises(ValueError):
        noise_adjusted_correlation([1, 2, np.nan], [1, 2, 3], [0] * 3, [0] * 3, None)


def test_selector_counts_reproduce_the_seed_luna_writer_row():
    # S28, Luna Writer: 9,327 candidates; accepts 8,857 (Luna) and 8,722 (Haiku); both 8,459.
    # differ = 8857 + 8722 − 2·8459 = 661 (398 Luna-only + 263 Haiku-only); both reject = 9327 − (8857 + 8722 −
    # 8459) = 207. One paper: ids 0..9326; both accept 0..8458, Luna only 8459..8856, Haiku only 8857..9119.
    cand = set(range(9327))
    a = set(range(8459)) | set(range(8459, 8857))
    b = set(range(8459)) | set(range(8857, 9120))
    s = selector_agreement([cand], [a], [b])
    assert (s.n_candidates, s.n_accepted_a, s.n_accepted_b, s.n_both_accept) == (9327, 8857, 8722, 8459)
    assert (s.n_decisions_differ, s.n_both_reject, s.n_identical_papers) == (661, 207, 0)
    assert s.mean_jaccard == pytest.approx(8459 / 9120)


def test_jaccard_and_identical_papers():
    assert jaccard(set(), set()) == 1.0  # both accept nothing: they agree
    assert jaccard({"d1"}, set()) == 0.0
    # papers: J = 1 (both empty), 1/3 ({d1,d2} vs {d2,d3}), 1 ({d1} vs {d1}) → mean 7/9; identical 2
    s = selector_agreement([{"d1"}, {"d1", "d2", "d3"}, {"d1"}], [set(), {"d1", "d2"}, {"d1"}],
                           [set(), {"d2", "d3"}, {"d1"}])
    assert s.mean_jaccard == pytest.approx(7 / 9) and s.n_identical_papers == 2 and s.n_both_reject == 1
    assert math.isnan(selector_agreement([], [], []).mean_jaccard)
    with pytest.raises(ValueError, match="outside the candidates"):
        selector_agreement([{"d1"}], [{"d2"}], [set()])


def test_letter_pairs_put_the_seed_l_before_h():
    assert letter_pairs(["H", "L"]) == [("L", "H")]
    assert letter_pairs("ABC") == [("C", "B"), ("C", "A"), ("B", "A")]
    assert letter_pairs([]) == []


def test_case_block_rule():
    short, ok, long_ = "x" * 69, "y " * 40, "z" * 751  # "y " * 40 normalises to 79 characters
    diffs = [
        {"diff_id": "d0001", "page": 2, "original": ok, "revised": ok, "accepted": True},
        {"diff_id": "d0009", "page": 1, "original": short, "revised": ok, "accepted": True},  # too short
        {"diff_id": "d0003", "page": 1, "original": ok, "revised": ok, "accepted": False},  # rejected
        {"diff_id": "d0004", "page": 1, "original": ok, "revised": long_, "accepted": True},  # too long
        {"diff_id": "d0005", "page": 1, "original": "  " + "w" * 70, "revised": "v" * 750, "accepted": True},
    ]
    # (page, id) order of the accepted: d0004, d0005, d0009 (page 1), d0001 (page 2); d0005 is the first fit
    assert pick_block(diffs)[0]["diff_id"] == "d0005" and pick_block(diffs)[1] == "length_70_750"
    # none fits: the first accepted in (page, id) order
    assert pick_block(diffs[1:2] + diffs[3:4])[0]["diff_id"] == "d0004"
    assert pick_block(diffs[1:2] + diffs[3:4])[1] == "first_accepted"
    assert pick_block(diffs[2:3]) == (None, None)


def test_case_order_is_the_sha256_of_the_paper_id():
    # sha256("abc") is the FIPS 180-2 test vector
    assert case_order("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
