import numpy as np
import pytest

from peerlake.metrics.distribution import affine_move, empirical, quick, sharpen, standard


def onehot(s):
    q = np.zeros(10)
    q[s - 1] = 1.0
    return q


def test_sharpen_with_t1_only_renormalizes_over_returned_candidates():
    r = np.zeros(10)
    r[[4, 5, 6]] = [0.2, 0.3, 0.1]  # scores 5, 6, 7 returned; mass 0.6
    present = r > 0
    out = sharpen(r, present, 1)
    assert out[[4, 5, 6]] == pytest.approx([1 / 3, 1 / 2, 1 / 6])
    assert out.sum() == pytest.approx(1.0)


def test_sharpen_temperature_flattens_and_floors_zero_candidates():
    r = np.zeros(10)
    r[[1, 7]] = [0.9, 0.1]
    present = r > 0
    present[4] = True  # returned with zero probability → floored to 1e-9, not dropped
    out = sharpen(r, present, 2)
    raw = np.array([0.9 ** 0.5, 1e-9 ** 0.5, 0.1 ** 0.5])
    assert out[[1, 4, 7]] == pytest.approx(raw / raw.sum())
    assert out[[0, 2, 3, 5, 6, 8, 9]].sum() == 0


def test_affine_move_splits_mass_linearly_and_keeps_integers_whole():
    # a0 = -0.4, b0 = 1.0: score 7 → x = 6.6 → 0.4 on 6, 0.6 on 7
    assert affine_move(onehot(7), -0.4, 1.0)[[5, 6]] == pytest.approx([0.4, 0.6])
    # a0 = -1.0, b0 = 1.0: x = 6 exactly → all on 6
    assert affine_move(onehot(7), -1.0, 1.0) == pytest.approx(onehot(6))
    # clipping: score 10 with b0 = 1.1 → x = 10.6 → 10; score 1 with a0 = -2 → x = -1 → 1
    assert affine_move(onehot(10), 0.0, 1.1) == pytest.approx(onehot(10))
    assert affine_move(onehot(1), -2.0, 1.0) == pytest.approx(onehot(1))


def test_affine_move_matches_a_hand_loop_for_every_grid_point():
    rng = np.random.default_rng(3)
    q = rng.dirichlet(np.ones(10))
    for a0 in np.round(np.arange(-2.0, 0.41, 0.2), 1):
        for b0 in (0.9, 1.0, 1.1):
            expect = np.zeros(10)
            for s in range(1, 11):
                x = min(max(a0 + b0 * s, 1.0), 10.0)
                lo = int(np.floor(x + 1e-12)) if abs(x - round(x)) < 1e-9 else int(np.floor(x))
                if abs(x - round(x)) < 1e-9:
                    expect[round(x) - 1] += q[s - 1]
                else:
                    expect[lo - 1] += q[s - 1] * (lo + 1 - x)
                    expect[lo] += q[s - 1] * (x - lo)
            got = affine_move(q, a0, b0)
            assert got == pytest.approx(expect, abs=1e-12), (a0, b0)
            assert got.sum() == pytest.approx(1.0)


def test_quick_and_standard_compose():
    r = np.zeros(10)
    r[[5, 6]] = [0.75, 0.25]
    qq = quick(r, r > 0, 1, 0.0, 1.0)
    assert qq == pytest.approx(r)
    qs = standard(qq, [6, 8], 0.4)
    assert qs == pytest.approx(0.4 * (onehot(6) + onehot(8)) / 2 + 0.6 * r)
    assert empirical([3, 3, 9]) == pytest.approx(np.array([0, 0, 2, 0, 0, 0, 0, 0, 1, 0]) / 3)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match=r"integers in 1\.\.10"):
        empirical([0, 11])
    with pytest.raises(ValueError, match="no score among"):
        sharpen(np.zeros(10), np.zeros(10, bool), 1)
    with pytest.raises(ValueError, match="shape"):
        affine_move(np.ones(9) / 9, 0, 1)
