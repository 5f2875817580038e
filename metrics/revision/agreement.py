"""revision_directions and revision_noise_adjusted ("Can We Believe AI Peer Review?"): two Scorers on the same
final manuscripts.

For one study and Writer/Selector condition, the papers complete in both Scorers' cells (W S x) and (W S y),
x and y from letter_pairs (x the rows: the source paper's Luna rows, Haiku columns). The noise-adjusted correlation
is also given for the original manuscripts' means (quantity 'original_means', condition null): each Scorer's
original scores are shared by all its cells, so a paper's original mean and e_o are taken from any of its
complete revision_gains rows of that Scorer. One bootstrap draw per row (its own papers), from the seed var.
"""

import numpy as np
import pandas as pd

from peerlake.metrics.revision.arithmetic import (
    DIRECTIONS,
    MIN_PAPERS,
    direction_table,
    letter_pairs,
    mean_gain_noise_sd,
    noise_adjusted_correlation,
    pearson,
)
from peerlake.metrics.revision.gains import treatment
from peerlake.metrics.stats.bootstrap import resample_indices
from peerlake.metrics.stats.keys import join_id

SIGN = {1: "pos", 0: "zero", -1: "neg"}
TABLE = [f"n_{SIGN[a]}_{SIGN[b]}" for a in DIRECTIONS for b in DIRECTIONS]

DIRECTION_COLUMNS = {
    "revision_direction_id": "string", "study_id": "string", "condition": "string", "writer": "string",
    "selector": "string", "scorer_x": "string", "scorer_y": "string", "cell_x": "string", "cell_y": "string",
    "n_papers": "int64", **dict.fromkeys(TABLE, "int64"), "n_same": "int64", "n_reversal": "int64",
    "n_any_zero": "int64", "share_same": "float64", "share_reversal": "float64", "share_any_zero": "float64",
    "pearson_gains": "float64", "mean_gain_x": "float64", "mean_gain_y": "float64", "mean_difference": "float64",
    "gain_noise_sd_x": "float64", "gain_noise_sd_y": "float64"}

NOISE_COLUMNS = {
    "revision_noise_adjusted_id": "string", "study_id": "string", "quantity": "string", "condition": "string",
    "scorer_x": "string", "scorer_y": "string", "n_papers": "int64", "r_observed": "float64", "rho_adj": "float64",
    "ci_low": "float64", "ci_high": "float64", "v_x": "float64", "v_y": "float64", "e_x": "float64",
    "e_y": "float64", "covariance": "float64", "n_resamples": "int64", "n_undefined": "int64",
    "n_out_of_range": "int64", "null_reason": "string", "n_papers_unchanged": "int64", "unchanged_final": "string",
    "bootstrap_seed": "int64"}


def scorer_pairs(gains: pd.DataFrame):
    """(study, condition, writer, selector, x, y, cell_x, cell_y, both): `both` holds one row per paper complete
    in both cells, with the x columns suffixed _x and the y columns _y."""
    complete = gains[gains["is_complete"].astype(bool)]
    for (study, cond), g in complete.groupby(["study_id", "condition"], sort=True):
        cells = {r["scorer"]: r for r in g.drop_duplicates("scorer").to_dict("records")}
        for x, y in letter_pairs(cells):
            gx, gy = g[g["scorer"] == x], g[g["scorer"] == y]
            both = gx.merge(gy, on="paper_id", suffixes=("_x", "_y")).sort_values("paper_id")
            yield (study, cond, cells[x]["writer"], cells[x]["selector"], x, y, cells[x]["cell"], cells[y]["cell"],
                   both)


def directions_table(gains: pd.DataFrame) -> pd.DataFrame:
    """revision_directions: the 3×3 table of gain directions, Pearson of gains, same / strict-reversal /
    at-least-one-zero counts and shares, both Scorers' mean gain and gain-noise SD, the mean x − y difference."""
    rows = []
    for study, cond, w, s, x, y, cx, cy, both in scorer_pairs(gains):
        d = direction_table(both["direction_x"].astype(int), both["direction_y"].astype(int))
        gx, gy = both["gain_x"].to_numpy(float), both["gain_y"].to_numpy(float)
        n = d.n_papers
        rows.append({"revision_direction_id": join_id(study, cond, x, y), "study_id": study, "condition": cond,
                     "writer": w, "selector": s, "scorer_x": x, "scorer_y": y, "cell_x": cx, "cell_y": cy,
                     "n_papers": n, **dict(zip(TABLE, d.table.ravel().tolist(), strict=True)),
                     "n_same": d.n_same, "n_reversal": d.n_reversal, "n_any_zero": d.n_any_zero,
                     "share_same": d.share(d.n_same), "share_reversal": d.share(d.n_reversal),
                     "share_any_zero": d.share(d.n_any_zero), "pearson_gains": pearson(gx, gy),
                     "mean_gain_x": gx.mean() if n else None, "mean_gain_y": gy.mean() if n else None,
                     "mean_difference": (gx - gy).mean() if n else None,
                     "gain_noise_sd_x": mean_gain_noise_sd(both["noise_var_gain_x"]),
                     "gain_noise_sd_y": mean_gain_noise_sd(both["noise_var_gain_y"])})
    return pd.DataFrame(rows, columns=list(DIRECTION_COLUMNS)).astype(DIRECTION_COLUMNS)


def _unchanged(both: pd.DataFrame | None) -> dict:
    """How many of the row's papers have an unchanged final, and how their gain noise was counted."""
    if both is None:  # original means: no final in them
        return {"n_papers_unchanged": 0, "unchanged_final": None}
    values = list(both["unchanged_final_x"]) + list(both["unchanged_final_y"])
    return {"n_papers_unchanged": int(both["unchanged_final_x"].notna().sum()), "unchanged_final": treatment(values)}


def _noise_row(fixed: dict, x, y, ex, ey, n_resamples: int, seed: int) -> dict:
    x, y, ex, ey = (np.asarray(a, dtype=float) for a in (x, y, ex, ey))
    no_noise = bool(np.isnan(ex).any() or np.isnan(ey).any())
    if no_noise:  # one score per side: no noise variance to adjust by
        x = y = ex = ey = np.array([])
    idx = resample_indices(x.size, n_resamples=n_resamples, seed=seed) if x.size >= MIN_PAPERS else None
    r = noise_adjusted_correlation(x, y, ex, ey, idx)
    reason = None
    if no_noise:
        reason = "fewer_than_2_repeats"
    elif r.n_papers < MIN_PAPERS:
        reason = f"fewer_than_{MIN_PAPERS}_papers"
    elif np.isnan(r.rho_adj):
        reason = "adjusted_variance_not_positive"
    key = join_id(fixed["study_id"], fixed["quantity"], fixed["condition"] or "-", fixed["scorer_x"], fixed["scorer_y"])
    return {"revision_noise_adjusted_id": key, **fixed, "n_papers": r.n_papers, "r_observed": r.r_observed,
            "rho_adj": r.rho_adj, "ci_low": r.ci_low, "ci_high": r.ci_high, "v_x": r.v_x, "v_y": r.v_y,
            "e_x": r.e_x, "e_y": r.e_y, "covariance": r.c, "n_resamples": n_resamples, "n_undefined": r.n_undefined,
            "n_out_of_range": r.n_out_of_range, "null_reason": reason, "bootstrap_seed": seed}


def noise_adjusted_table(gains: pd.DataFrame, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """revision_noise_adjusted: ρ_adj between two Scorers for the original means (per study and Scorer pair) and
    for the gains (per study, condition and Scorer pair), with its bootstrap interval and the counts of
    undefined and out-of-range resamples. null_reason says why ρ_adj is null."""
    rows = []
    complete = gains[gains["is_complete"].astype(bool)]
    for study, g in complete.groupby("study_id", sort=True):
        originals = g.drop_duplicates(["scorer", "paper_id"])
        for x, y in letter_pairs(originals["scorer"]):
            both = originals[originals["scorer"] == x].merge(originals[originals["scorer"] == y], on="paper_id",
                                                             suffixes=("_x", "_y")).sort_values("paper_id")
            fixed = {"study_id": study, "quantity": "original_means", "condition": None, "scorer_x": x,
                     "scorer_y": y}
            rows.append({**_noise_row(fixed, both["mean_original_x"], both["mean_original_y"],
                                      both["noise_var_original_x"], both["noise_var_original_y"], n_resamples, seed),
                         **_unchanged(None)})
    for study, cond, _w, _s, x, y, _cx, _cy, both in scorer_pairs(gains):
        fixed = {"study_id": study, "quantity": "gains", "condition": cond, "scorer_x": x, "scorer_y": y}
        rows.append({**_noise_row(fixed, both["gain_x"], both["gain_y"], both["noise_var_gain_x"],
                                  both["noise_var_gain_y"], n_resamples, seed), **_unchanged(both)})
    return pd.DataFrame(rows, columns=list(NOISE_COLUMNS)).astype(NOISE_COLUMNS)
