"""The report's revision-crossover section (from "Can We Believe AI Peer Review?"):
does revising a paper to please a reviewer
make it better, and who says so? Mean gains with 95% intervals per Scorer (the source paper's Figure 4), the bubble
scatter of one Scorer's gains against the other's per Writer/Selector condition (Figure F1), and the tables
of gaps, directions, noise-adjusted correlations, Selector agreement, validators and fixed-rule cases."""

import html

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.data import ReportData

HEADING = "<h2>Revision: does revising to please a reviewer make the paper better?</h2>"
CELLS, GAINS, GAPS = "revision_cells", "revision_gains", "revision_scorer_gaps"
DIRECTIONS, NOISE, AGREEMENT = "revision_directions", "revision_noise_adjusted", "revision_selector_agreement"
VALIDATION, CASES = "revision_validation", "revision_cases"
NEEDS: dict[str, list[str]] = {
    CELLS: ["study_id", "revision_cell_id", "cell", "condition", "scorer", "scorer_model", "venue_year", "n_papers",
            "n_papers_dropped_incomplete", "n_papers_blocked", "mean_gain", "ci_low", "ci_high", "n_positive",
            "n_zero", "n_negative", "mean_gain_noise_sd", "n_resamples", "bootstrap_seed"],
    GAINS: ["study_id", "cell", "condition", "scorer", "paper_id", "is_complete", "gain"],
    GAPS: ["study_id", "venue_year", "quantity", "expression", "n_papers", "estimate", "ci_low", "ci_high"],
    DIRECTIONS: ["study_id", "condition", "scorer_x", "scorer_y", "cell_x", "cell_y", "n_papers", "n_pos_pos",
                 "n_pos_zero", "n_pos_neg", "n_zero_pos", "n_zero_zero", "n_zero_neg", "n_neg_pos", "n_neg_zero",
                 "n_neg_neg", "share_same", "share_reversal", "share_any_zero", "pearson_gains",
                 "gain_noise_sd_x", "gain_noise_sd_y", "mean_difference"],
    NOISE: ["study_id", "quantity", "condition", "scorer_x", "scorer_y", "n_papers", "r_observed", "rho_adj",
            "ci_low", "ci_high", "n_resamples", "n_undefined", "n_out_of_range", "null_reason"],
    AGREEMENT: ["study_id", "writer", "selector_a", "selector_b", "n_papers", "n_candidates", "n_accepted_a",
                "n_accepted_b", "n_both_accept", "n_decisions_differ", "n_both_reject", "n_identical_papers",
                "mean_jaccard", "n_papers_blocked"],
    VALIDATION: ["study_id", "condition", "n_papers", "n_ok", "n_blocked", "blocked_reasons", "failed_checks",
                 "n_edited_blocks", "n_image_entries", "n_images_rehashed", "n_reasons_truncated"],
    CASES: ["study_id", "condition", "scorer_x", "scorer_y", "stratum", "n_papers_in_stratum", "paper_id",
            "gain_x", "gain_y", "diff_id", "page", "original_text", "revised_text", "block_rule"],
}
CAVEAT = ("<p class='note'>With the embedded local models in the Writer, Selector and Scorer roles these numbers "
          "test the machinery, not the science: the small models are not good judges of papers.</p>")


def _fmt(v, nd: int = 3) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
        return "—"
    if isinstance(v, float | np.floating):
        return f"{v:.{nd}f}"
    return str(v)


def _ci(est, lo, hi) -> str:
    if _fmt(est) == "—":
        return "—"
    return f"{_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}]"


def _table(rows: list[dict], cols: dict[str, str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in cols.values())
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def gains_figure(cells: pd.DataFrame) -> str:
    """Figure 4: per condition, each Scorer's mean gain with its 95% interval ('all' venue-years)."""
    c = cells[(cells["venue_year"] == "all") & (cells["n_papers"] > 0)].sort_values(["condition", "scorer"])
    conditions = sorted(c["condition"].unique())
    scorers = sorted(c["scorer"].unique(), reverse=True)
    width = 0.7 / max(len(scorers), 1)
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(conditions), 3.2))
        for k, scorer in enumerate(scorers):
            s = c[c["scorer"] == scorer].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + (k - (len(scorers) - 1) / 2) * width
            mean = s["mean_gain"].astype(float).to_numpy()
            err = np.vstack([mean - s["ci_low"].astype(float).to_numpy(), s["ci_high"].astype(float).to_numpy() - mean])
            model = s["scorer_model"].dropna()
            ax.errorbar(x, mean, yerr=err, fmt="o", capsize=3,
                        label=f"Scorer {scorer}" + (f" ({model.iloc[0]})" if len(model) else ""))
        ax.axhline(0, color="#888", lw=0.8)
        ax.set_xticks(range(len(conditions)), [f"W/S {c}" for c in conditions])
        ax.set_ylabel("mean gain (final − original)")
        ax.legend(fontsize=7, frameon=False)
        fig.tight_layout()
        return figures._png(fig)


def bubble_figure(gains: pd.DataFrame, directions: pd.DataFrame) -> str:
    """Figure F1: per condition and Scorer pair, paper gains under x against y; each distinct point a bubble
    with area ∝ its paper count (no jitter), dashed y = x."""
    done = gains[gains["is_complete"].astype(bool)]
    rows = directions.sort_values(["condition", "scorer_x", "scorer_y"]).to_dict("records")
    with plt.rc_context(figures.STYLE):
        fig, axes = plt.subplots(1, len(rows), figsize=(3.3 * len(rows), 3.3), squeeze=False)
        for ax, r in zip(axes.flat, rows, strict=True):
            gx = done[done["cell"] == r["cell_x"]].set_index("paper_id")["gain"]
            gy = done[done["cell"] == r["cell_y"]].set_index("paper_id")["gain"]
            both = pd.concat([gx.rename("x"), gy.rename("y")], axis=1, join="inner").round(6)
            counts = both.groupby(["x", "y"]).size().reset_index(name="n")
            ax.scatter(counts["x"], counts["y"], s=25 * counts["n"], alpha=0.5, color="#4C72B0", edgecolor="#234")
            lim = max(1.0, float(np.abs(both.to_numpy()).max()) if len(both) else 1.0) + 0.3
            ax.plot([-lim, lim], [-lim, lim], ls="--", color="#888", lw=0.8)
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
            ax.set_xlabel(f"gain, Scorer {r['scorer_x']} ({r['cell_x']})")
            ax.set_ylabel(f"gain, Scorer {r['scorer_y']} ({r['cell_y']})")
            ax.set_title(f"W/S {r['condition']} · {len(both)} papers", fontsize=9)
        fig.tight_layout()
        return figures._png(fig)


def _directions_table(d: pd.DataFrame) -> str:
    rows = []
    for r in d.sort_values(["condition", "scorer_x"]).to_dict("records"):
        table = " / ".join(" ".join(str(int(r[f"n_{a}_{b}"])) for b in ("pos", "zero", "neg"))
                           for a in ("pos", "zero", "neg"))
        rows.append({**r, "pair": f"{r['scorer_x']} vs {r['scorer_y']}", "table": table,
                     "same": f"{100 * r['share_same']:.1f} %" if pd.notna(r["share_same"]) else "—",
                     "rev": f"{100 * r['share_reversal']:.1f} %" if pd.notna(r["share_reversal"]) else "—",
                     "zero": f"{100 * r['share_any_zero']:.1f} %" if pd.notna(r["share_any_zero"]) else "—"})
    return _table(rows, {"condition": "W/S", "pair": "Scorers (rows vs columns)", "n_papers": "papers",
                         "table": "+/0/− rows: + · 0 · − columns", "pearson_gains": "Pearson of gains",
                         "same": "same (incl. both 0)", "rev": "strict reversal", "zero": "at least one 0",
                         "gain_noise_sd_x": "gain-noise SD x", "gain_noise_sd_y": "gain-noise SD y",
                         "mean_difference": "mean x − y"})


def section(data: ReportData, labels: dict) -> str:
    """Figures 4 and F1 and the crossover's tables; a note when the study ran no crossover."""
    cells = data.get(CELLS)
    if cells is None:
        return HEADING + notes.missing("Revision crossover", CELLS, data.missing.get(CELLS, "is not there"))
    if cells.empty:
        return HEADING + ("<p>Revision crossover not measured: this study declares no revision cells (add a "
                          "[revision] table to the study and run it).</p>")
    parts = [HEADING, CAVEAT,
             "<p class='how'>Per paper and Scorer, gain = mean of the final manuscript's scores − mean of the "
             "original's; its direction comes from the two integer sums. Means over the papers complete on both "
             "sides, with paired paper-bootstrap percentile 95% intervals "
             f"({int(cells['n_resamples'].iloc[0])} resamples, seed {int(cells['bootstrap_seed'].iloc[0])}). "
             "Cells are Writer/Selector/Scorer letters.</p>"]
    if (cells["n_papers"] > 0).any():
        parts.append(f'<img src="{gains_figure(cells)}" alt="mean gains per Scorer">')
    parts.append(_table([{**r, "ci": _ci(r["mean_gain"], r["ci_low"], r["ci_high"]),
                          "dirs": f"{r['n_positive']}/{r['n_zero']}/{r['n_negative']}"}
                         for r in cells.sort_values(["cell", "venue_year"]).to_dict("records")],
                        {"cell": "cell", "venue_year": "venue-year", "scorer_model": "Scorer model",
                         "n_papers": "papers", "ci": "mean gain [95% CI]", "dirs": "+/0/−",
                         "n_papers_dropped_incomplete": "dropped (incomplete)", "n_papers_blocked": "blocked",
                         "mean_gain_noise_sd": "gain-noise SD"}))
    gaps = data.get(GAPS)
    if gaps is not None and not gaps.empty:
        parts.append("<h3>Scorer gaps on the same final manuscripts</h3>" + _table(
            [{**r, "ci": _ci(r["estimate"], r["ci_low"], r["ci_high"])}
             for r in gaps.sort_values(["venue_year", "quantity", "expression"]).to_dict("records")],
            {"venue_year": "venue-year", "expression": "quantity", "n_papers": "papers", "ci": "estimate [95% CI]"}))
    d, gains = data.get(DIRECTIONS), data.get(GAINS)
    if d is not None and not d.empty:
        parts.append("<h3>Do the Scorers agree on the direction?</h3>")
        if gains is not None:
            parts.append(f'<img src="{bubble_figure(gains, d)}" alt="gains under one Scorer against the other">'
                         "<p class='how'>Each bubble is one pair of gains; its area is the number of papers with "
                         "it (no jitter). Dashed: y = x.</p>")
        parts.append(_directions_table(d))
    n = data.get(NOISE)
    if n is not None and not n.empty:
        parts.append("<h3>Noise-adjusted correlation between Scorers</h3><p class='how'>ρ<sub>adj</sub> = c / "
                     "sqrt((v<sub>x</sub> − e<sub>x</sub>)(v<sub>y</sub> − e<sub>y</sub>)), not clipped; the "
                     "interval over the resamples where it is defined.</p>" + _table(
                         [{**r, "ci": _ci(r["rho_adj"], r["ci_low"], r["ci_high"]),
                           "what": r["quantity"] + (f" {r['condition']}" if pd.notna(r["condition"]) else "")}
                          for r in n.sort_values(["quantity", "condition"]).to_dict("records")],
                         {"what": "quantity", "n_papers": "papers", "r_observed": "observed r",
                          "ci": "ρ_adj [95% CI]", "n_undefined": "undefined resamples",
                          "n_out_of_range": "out of [−1, 1]", "null_reason": "why null"}))
    a = data.get(AGREEMENT)
    if a is not None and not a.empty:
        parts.append("<h3>Selector agreement</h3>" + _table(
            a.sort_values(["writer", "selector_a"]).to_dict("records"),
            {"writer": "Writer", "selector_a": "Selector a", "selector_b": "Selector b", "n_papers": "papers",
             "n_candidates": "candidates", "n_accepted_a": "a accepts", "n_accepted_b": "b accepts",
             "n_both_accept": "both accept", "n_decisions_differ": "differ", "n_both_reject": "both reject",
             "n_identical_papers": "identical papers", "mean_jaccard": "mean Jaccard"}))
    v = data.get(VALIDATION)
    if v is not None and not v.empty:
        parts.append("<h3>Validators and structural checks</h3>" + _table(
            v.sort_values("condition").to_dict("records"),
            {"condition": "W/S", "n_papers": "papers", "n_ok": "ok", "n_blocked": "blocked",
             "blocked_reasons": "why blocked", "failed_checks": "failed checks", "n_edited_blocks": "edited blocks",
             "n_image_entries": "image entries", "n_images_rehashed": "images re-hashed",
             "n_reasons_truncated": "reasons truncated"}))
    cases = data.get(CASES)
    if cases is not None and not cases.empty:
        shown = cases[cases["n_papers_in_stratum"] > 0].sort_values(["condition", "stratum"])
        parts.append("<h3>Cases by a fixed rule</h3><p class='how'>Per direction stratum, the first paper by the "
                     "SHA-256 of its id, and its first accepted block of 70–750 characters.</p>" + _table(
                         [{**r, "original_text": str(r["original_text"] or "")[:300],
                           "revised_text": str(r["revised_text"] or "")[:300]} for r in shown.to_dict("records")],
                         {"condition": "W/S", "stratum": "stratum", "n_papers_in_stratum": "papers",
                          "paper_id": "paper", "gain_x": "gain x", "gain_y": "gain y", "diff_id": "block",
                          "original_text": "original", "revised_text": "revised"}))
    return "".join(parts)
