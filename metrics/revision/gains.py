"""revision_gains, revision_cells and revision_scorer_gaps ("Can We Believe AI Peer Review?").

A paper counts in a cell only when BOTH sides have `repeats` parsed scores (sample indices 0..repeats−1);
otherwise its revision_gains row says is_complete = false with null statistics, and revision_cells counts it
in n_papers_dropped_incomplete (a paper blocked by a validator has no score rows: n_papers_blocked, from
int_revision_outcomes). A paper whose final is unchanged counts as its `unchanged_final` column says
(zero_noise: gain 0 and noise variance 0; rescore: scored again, the usual noise): metrics.revision.arithmetic.

One bootstrap world per (study, venue_year group — each venue_year and 'all'): the papers with a complete
gain in any cell of the study in that group, sorted by paper_id, drawn once with resample_indices(seed).
Every cell mean, every Scorer gap and every gap change of the group reads that draw, each averaging the
drawn papers it has a value for (all cells of the source paper hold the same 199 papers, so there the draw is
exactly the paired paper bootstrap); both marts rebuild the same draw from the same papers and seed.
"""

import numpy as np
import pandas as pd

from peerlake.metrics.revision.arithmetic import ZERO_NOISE, letter_pairs, mean_gain_noise_sd, mean_with_ci, paper_gains
from peerlake.metrics.stats.bootstrap import resample_indices
from peerlake.metrics.stats.keys import join_id

ALL = "all"
CELL_META = ["writer", "selector", "scorer", "condition", "scorer_model"]

GAIN_COLUMNS = {
    "revision_gain_id": "string", "study_id": "string", "cell": "string", "writer": "string", "selector": "string",
    "scorer": "string", "condition": "string", "scorer_model": "string", "venue_year": "string",
    "paper_id": "string", "final_paper_id": "string", "repeats": "int64", "n_original_scores": "int64",
    "n_final_scores": "int64", "is_complete": "bool", "sum_original": "Int64", "sum_final": "Int64",
    "mean_original": "float64", "mean_final": "float64", "gain": "float64", "direction": "Int64",
    "noise_var_original": "float64", "noise_var_gain": "float64", "gain_noise_sd": "float64",
    "unchanged_final": "string"}

CELL_COLUMNS = {
    "revision_cell_id": "string", "study_id": "string", "cell": "string", "writer": "string", "selector": "string",
    "scorer": "string", "condition": "string", "scorer_model": "string", "venue_year": "string", "repeats": "Int64",
    "n_papers": "int64", "n_papers_dropped_incomplete": "int64", "n_papers_blocked": "int64",
    "mean_gain": "float64", "ci_low": "float64", "ci_high": "float64", "n_positive": "int64", "n_zero": "int64",
    "n_negative": "int64", "mean_gain_noise_sd": "float64", "n_papers_unchanged": "int64",
    "unchanged_final": "string", "n_resamples": "int64", "bootstrap_seed": "int64"}

GAP_COLUMNS = {
    "revision_scorer_gap_id": "string", "study_id": "string", "venue_year": "string", "quantity": "string",
    "expression": "string", "writer": "string", "selector_from": "string", "selector_to": "string",
    "scorer_a": "string", "scorer_b": "string", "n_papers": "int64", "estimate": "float64", "ci_low": "float64",
    "ci_high": "float64", "n_resamples": "int64", "bootstrap_seed": "int64"}


def _frame(rows: list[dict], columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def gains_table(scores: pd.DataFrame) -> pd.DataFrame:
    """revision_gains from int_revision_scores: one row per (study, cell, paper) with any score row."""
    rows = []
    keys = ["study_id", "cell", "paper_id"]
    for (study, cell, paper), g in scores.groupby(keys, sort=True):
        first = g.iloc[0]
        repeats = int(first["repeats"])
        sides = {}
        for side in ("original", "final"):
            s = g[(g["side"] == side) & g["score"].notna() & g["sample_index"].between(0, repeats - 1)]
            sides[side] = s.drop_duplicates("sample_index").sort_values("sample_index")["score"].to_numpy(float)
        final_ids = g["final_paper_id"].dropna()
        unchanged = unchanged_final(first)
        row = {"revision_gain_id": join_id(study, cell, paper), "study_id": study, "cell": cell,
               **{c: first[c] for c in CELL_META}, "venue_year": first["venue_year"], "paper_id": paper,
               "final_paper_id": final_ids.iloc[0] if len(final_ids) else None, "repeats": repeats,
               "n_original_scores": len(sides["original"]), "n_final_scores": len(sides["final"]),
               "unchanged_final": unchanged}
        row["is_complete"] = repeats > 0 and row["n_original_scores"] == row["n_final_scores"] == repeats
        if row["is_complete"]:
            pg = paper_gains(sides["original"][None, :], sides["final"][None, :],
                             unchanged=[unchanged == ZERO_NOISE])
            row.update(sum_original=int(sides["original"].sum()), sum_final=int(sides["final"].sum()),
                       mean_original=pg.mean_original[0], mean_final=pg.mean_final[0], gain=pg.gain[0],
                       direction=int(pg.direction[0]), noise_var_original=pg.noise_var_original[0],
                       noise_var_gain=pg.noise_var_gain[0], gain_noise_sd=float(np.sqrt(pg.noise_var_gain[0])))
        rows.append(row)
    return _frame(rows, GAIN_COLUMNS)


def unchanged_final(row) -> str | None:
    """How the paper's unchanged final is measured (int_revision_scores.unchanged_final), None when revised."""
    value = row.get("unchanged_final")
    return None if value is None or pd.isna(value) else str(value)


def treatment(values) -> str | None:
    """The one unchanged_final of a set of papers ('mixed' when they differ; None when none is unchanged)."""
    kinds = sorted({str(v) for v in values if v is not None and not pd.isna(v)})
    return None if not kinds else kinds[0] if len(kinds) == 1 else "mixed"


def comparison_groups(gains: pd.DataFrame):
    """(study, venue_year group, its gains rows, the union of its complete papers in order) for every study:
    'all' first, then each venue_year. The draw over `union` is the group's one bootstrap world."""
    for study, sg in gains.groupby("study_id", sort=True):
        groups = [(ALL, sg)] + [(str(vy), g) for vy, g in sg.groupby("venue_year", sort=True)]
        for vy, g in groups:
            union = sorted(g.loc[g["is_complete"].astype(bool), "paper_id"].unique())
            yield study, vy, g, union


def _draw(union: list, n_resamples: int, seed: int):
    return resample_indices(len(union), n_resamples=n_resamples, seed=seed) if union else None


def _cell_vector(group: pd.DataFrame, cell: str, union: list) -> np.ndarray:
    """The cell's gains over `union` (nan where the paper has no complete gain in this cell)."""
    g = group[(group["cell"] == cell) & group["is_complete"].astype(bool)]
    return g.set_index("paper_id")["gain"].reindex(union).to_numpy(dtype=float)


def _cell_meta(study: str, gains: pd.DataFrame, cells: pd.DataFrame) -> dict[str, dict]:
    """cell → its roles, model and repeats: the declared cells first, then any cell only the scores name."""
    meta = {}
    for frame in (cells[cells["study_id"] == study], gains[gains["study_id"] == study]):
        for r in frame.drop_duplicates("cell").to_dict("records"):
            meta.setdefault(r["cell"], {**{c: r[c] for c in CELL_META}, "repeats": r["repeats"]})
    return dict(sorted(meta.items()))


def cells_table(gains: pd.DataFrame, cells: pd.DataFrame, outcomes: pd.DataFrame, *, n_resamples: int,
                seed: int) -> pd.DataFrame:
    """revision_cells: per (study, cell, venue_year incl. 'all'). Every declared cell has its 'all' row (n_papers
    0 and null statistics when nothing was scored); a venue_year row exists where the cell has any paper."""
    blocked = outcomes[outcomes["status"] == "blocked"]
    rows = []
    for study in sorted(set(gains["study_id"]) | set(cells["study_id"])):
        sg = gains[gains["study_id"] == study]
        meta = _cell_meta(study, gains, cells)
        sb = blocked[blocked["study_id"] == study]
        for _, vy, g, union in list(comparison_groups(sg)) or [(study, ALL, sg, [])]:
            idx = _draw(union, n_resamples, seed)
            gb = sb if vy == ALL else sb[sb["venue_year"].astype(str) == vy]
            for cell, m in meta.items():
                mine = g[g["cell"] == cell]
                complete = mine[mine["is_complete"].astype(bool)]
                n_blocked = int((gb["condition"] == m["condition"]).sum())
                if vy != ALL and not (len(mine) or n_blocked):
                    continue
                n, mean, lo, hi = mean_with_ci(_cell_vector(g, cell, union), idx)
                d = complete["direction"].astype(int)
                rows.append({"revision_cell_id": join_id(study, cell, vy), "study_id": study, "cell": cell,
                             **m, "venue_year": vy, "n_papers": n,
                             "n_papers_dropped_incomplete": len(mine) - len(complete), "n_papers_blocked": n_blocked,
                             "mean_gain": mean, "ci_low": lo, "ci_high": hi,
                             "n_positive": int((d == 1).sum()), "n_zero": int((d == 0).sum()),
                             "n_negative": int((d == -1).sum()),
                             "mean_gain_noise_sd": mean_gain_noise_sd(complete["noise_var_gain"]),
                             "n_papers_unchanged": int(complete["unchanged_final"].notna().sum()),
                             "unchanged_final": treatment(complete["unchanged_final"]),
                             "n_resamples": n_resamples, "bootstrap_seed": seed})
    return _frame(rows, CELL_COLUMNS)


def scorer_gaps_table(gains: pd.DataFrame, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """revision_scorer_gaps: per (study, venue_year group) the gap between two Scorers on one final manuscript
    (cell(W S a) − cell(W S b), over the papers complete in both) and its change when the Selector changes
    from s to t ((W t a − W t b) − (W s a − W s b), over the papers complete in all four); pairs and their
    order from letter_pairs (the source paper's LLL − LLH and (LHL − LHH) − (LLL − LLH))."""
    rows = []
    for study, vy, g, union in comparison_groups(gains):
        rows += _group_gaps(g, union, _draw(union, n_resamples, seed), {
            "study_id": study, "venue_year": vy, "n_resamples": n_resamples, "bootstrap_seed": seed})
    return _frame(rows, GAP_COLUMNS)


def _group_gaps(g: pd.DataFrame, union: list, idx, fixed: dict) -> list[dict]:
    named = {(r["writer"], r["selector"], r["scorer"]): r["cell"] for r in g.drop_duplicates("cell").to_dict("records")}
    rows = []

    def emit(quantity, w, s, t, a, b, values, expression):
        n, est, lo, hi = mean_with_ci(values, idx)
        rows.append({**fixed, "revision_scorer_gap_id": join_id(fixed["study_id"], fixed["venue_year"], expression),
                     "quantity": quantity, "expression": expression, "writer": w, "selector_from": s,
                     "selector_to": t, "scorer_a": a, "scorer_b": b, "n_papers": n, "estimate": est,
                     "ci_low": lo, "ci_high": hi})

    def vec(w, s, r):
        return _cell_vector(g, named[(w, s, r)], union)

    for w in sorted({k[0] for k in named}):
        selectors = sorted({k[1] for k in named if k[0] == w})
        scorers = sorted({k[2] for k in named if k[0] == w})
        for a, b in letter_pairs(scorers):
            have = [s for s in selectors if (w, s, a) in named and (w, s, b) in named]
            for s in have:
                emit("gap", w, s, s, a, b, vec(w, s, a) - vec(w, s, b), f"{named[(w, s, a)]} - {named[(w, s, b)]}")
            for s, t in letter_pairs(have):
                gap_s = f"{named[(w, s, a)]} - {named[(w, s, b)]}"
                gap_t = f"{named[(w, t, a)]} - {named[(w, t, b)]}"
                emit("gap_change", w, s, t, a, b, (vec(w, t, a) - vec(w, t, b)) - (vec(w, s, a) - vec(w, s, b)),
                     f"({gap_t}) - ({gap_s})")
    return rows
