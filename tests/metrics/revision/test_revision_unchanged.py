"""An unchanged final (the Selector accepted nothing) in the noise-adjusted correlation (issue #24 §3).

Its final IS the original, so under unchanged_final = zero_noise (the default) its final side reads the
original's own scores: the gain is 0 by construction, and so is that gain's noise. Counting the usual
(S²_o + S²_v)/k there subtracts noise the gain does not have from v, and ρ_adj climbs: with 30 % such
papers the simulation below moves the median ρ_adj from the true 0.31 to 0.82. Under rescore the final
is scored again in sessions of its own and the usual noise term is right."""

import numpy as np
import pandas as pd
import pytest

from peerlake.metrics.revision.agreement import noise_adjusted_table
from peerlake.metrics.revision.arithmetic import noise_adjusted_correlation, paper_gains
from peerlake.metrics.revision.gains import cells_table, gains_table

TRUE_RHO = 0.3  # the correlation of the two Scorers' true gains (zero-mean, so unchanged papers keep it)
N_PAPERS, K, SHARE_UNCHANGED, REPLICATIONS = 200, 3, 0.3, 300


def _world(rng, mode: str):
    """One simulated study of two Scorers: (original, final) integer scores per Scorer and the unchanged
    mask. Scores = round(paper level + true gain (final only) + N(0, 1) per review), clipped to 1-10."""
    gains = rng.multivariate_normal([0, 0], np.array([[1, TRUE_RHO], [TRUE_RHO, 1]]) * 0.7 ** 2, size=N_PAPERS)
    unchanged = np.arange(N_PAPERS) < int(SHARE_UNCHANGED * N_PAPERS)
    gains[unchanged] = 0.0
    level = rng.normal(5, 1, size=(N_PAPERS, 2))
    sides = []
    for j in range(2):
        o = np.clip(np.round(level[:, [j]] + rng.normal(0, 1, (N_PAPERS, K))), 1, 10)
        f = np.clip(np.round(level[:, [j]] + gains[:, [j]] + rng.normal(0, 1, (N_PAPERS, K))), 1, 10)
        if mode != "rescore":  # the final side of an unchanged paper reads the original's own scores
            f = np.where(unchanged[:, None], o, f)
        sides.append((o, f))
    return sides, unchanged


def _median_rho(mode: str) -> float:
    rng = np.random.default_rng(2024)
    rhos = []
    for _ in range(REPLICATIONS):
        sides, unchanged = _world(rng, mode)
        flags = unchanged if mode == "zero_noise" else None  # "reused": the noise counted as before the fix
        gx, gy = (paper_gains(o, f, unchanged=flags) for o, f in sides)
        rhos.append(noise_adjusted_correlation(gx.gain, gy.gain, gx.noise_var_gain, gy.noise_var_gain,
                                               None).rho_adj)
    return float(np.nanmedian(rhos))


def test_counting_an_unchanged_finals_noise_inflates_rho_adj():
    # what the marts computed before: the reused scores' noise counted in e_Δ
    assert _median_rho("reused") > 0.75


@pytest.mark.parametrize("mode", ["zero_noise", "rescore"])
def test_the_bias_is_gone_under_either_treatment(mode):
    assert _median_rho(mode) == pytest.approx(TRUE_RHO, abs=0.03)


def test_an_unchanged_papers_gain_noise_is_zero_and_it_must_read_its_own_scores():
    o = np.array([[5, 6, 7], [4, 4, 6]])
    f = np.array([[5, 6, 7], [6, 6, 6]])
    pg = paper_gains(o, f, unchanged=[True, False])
    assert pg.gain.tolist() == [0.0, pytest.approx(4 / 3)]
    # S²_o = 1 for paper 1: the unflagged formula would give (1 + 1)/3; paper 2: (4/3 + 0)/3
    assert pg.noise_var_gain.tolist() == [0.0, pytest.approx(4 / 9)]
    assert pg.noise_var_original.tolist() == [pytest.approx(1 / 3), pytest.approx(4 / 9)]
    with pytest.raises(ValueError, match="own scores"):
        paper_gains(o, f, unchanged=[False, True])


# ---- the marts -----------------------------------------------------------------------------------------

def _scores(sides, unchanged, mode: str) -> pd.DataFrame:
    """int_revision_scores rows for cells LLL and LLH (condition LL) of the simulated study."""
    rows = []
    for scorer, (o, f) in zip("LH", sides, strict=True):
        for i in range(N_PAPERS):
            paper = f"p{i:03d}"
            same = bool(unchanged[i])
            final_id = paper if same and mode == "zero_noise" else f"{paper}~revision-x"
            for side, values in (("original", o[i]), ("final", f[i])):
                for k, v in enumerate(values):
                    rows.append({"study_id": "S", "cell": "LL" + scorer, "writer": "L", "selector": "L",
                                 "scorer": scorer, "condition": "LL", "scorer_model": f"m-{scorer}",
                                 "paper_id": paper, "final_paper_id": final_id, "venue_year": "v", "side": side,
                                 "sample_index": k, "score": int(v), "repeats": K,
                                 "unchanged_final": mode if same else None})
    return pd.DataFrame(rows).astype({"score": "Int64"})


@pytest.mark.parametrize("mode", ["zero_noise", "rescore"])
def test_the_marts_count_an_unchanged_final_as_its_setting_says_and_name_it(mode):
    sides, unchanged = _world(np.random.default_rng(7), mode)
    gains = gains_table(_scores(sides, unchanged, mode))
    mine = gains[gains["paper_id"].isin([f"p{i:03d}" for i in np.flatnonzero(unchanged)])]
    assert set(mine["unchanged_final"]) == {mode}
    assert gains.loc[~gains.index.isin(mine.index), "unchanged_final"].isna().all()
    if mode == "zero_noise":
        assert (mine["gain"] == 0).all() and (mine["noise_var_gain"] == 0).all()
    else:
        assert (mine["noise_var_gain"] > 0).any()
    noise = noise_adjusted_table(gains, n_resamples=20, seed=1)
    row = noise[noise["quantity"] == "gains"].iloc[0]
    assert (row["n_papers_unchanged"], row["unchanged_final"]) == (int(unchanged.sum()), mode)
    assert noise[noise["quantity"] == "original_means"].iloc[0]["n_papers_unchanged"] == 0
    # the mart's ρ_adj is the function's on the same papers, with the unchanged papers' noise as set
    flags = unchanged if mode == "zero_noise" else None
    gx, gy = (paper_gains(o, f, unchanged=flags) for o, f in sides)
    expected = noise_adjusted_correlation(gx.gain, gy.gain, gx.noise_var_gain, gy.noise_var_gain, None)
    assert row["rho_adj"] == pytest.approx(expected.rho_adj)
    cells = cells_table(gains, gains.iloc[0:0], gains.iloc[0:0].assign(status=[]), n_resamples=10, seed=1)
    lll = cells[(cells["cell"] == "LLL") & (cells["venue_year"] == "all")].iloc[0]
    assert (lll["n_papers_unchanged"], lll["unchanged_final"]) == (int(unchanged.sum()), mode)
