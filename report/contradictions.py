"""The report's contradictions section (the Multi-Layered Review paper): detection rate by distance with Wilson 95%
intervals, one line per reviewer configuration (one review, and the largest any-of-k ensemble dashed), the
overall rates per ensemble size, and the detection judge's audit. "not measured" and why, never 0."""

import html

import matplotlib.pyplot as plt
import pandas as pd

from peerlake.report import figures
from peerlake.report.data import ReportData

HEADING = "<h2>Contradiction detection</h2>"
DETECTION = "contradiction_detection"
AUDIT = "contradiction_judge_audit"
NEEDS: dict[str, list[str]] = {
    DETECTION: ["judge_config", "source", "reviewer_config", "item_set", "k", "distance", "distance_value", "n_items",
                "n_items_measured", "accuracy", "wilson_lo", "wilson_hi", "null_reason"],
    AUDIT: ["judge_config", "measure", "reviewer_config", "n_subjects", "n_subjects_measured", "n_judgments", "rate",
            "wilson_lo", "wilson_hi", "null_reason"],
}


def _nm(why) -> str:
    return f"<span class='nm'>not measured: {html.escape(str(why))}</span>"


def _pct(rate, lo, hi) -> str:
    return f"{rate:.1%} [{lo:.1%}, {hi:.1%}]"


def _rate_cell(r) -> str:
    if pd.isna(r["accuracy"] if "accuracy" in r else r["rate"]):
        return f"<td>{_nm(r['null_reason'] if pd.notna(r['null_reason']) else 'no rows')}</td>"
    rate = r["accuracy"] if "accuracy" in r else r["rate"]
    return f"<td>{html.escape(_pct(rate, r['wilson_lo'], r['wilson_hi']))}</td>"


def by_distance(det: pd.DataFrame, labels: dict[str, str]) -> str:
    """Accuracy per distance with Wilson error bars; solid: one review, dashed: the largest ensemble."""
    per = det[(det["item_set"] == "all") & (det["distance"] != "all")].dropna(subset=["accuracy"])
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(6.5, 3.2))
        for i, (cfg, g) in enumerate(per.groupby("reviewer_config", sort=True)):
            color = f"C{i % 10}"
            for k, style in ((1, "-"), (int(g["k"].max()), "--")):
                s = g[g["k"] == k].sort_values("distance_value")
                if s.empty or (style == "--" and k == 1):
                    continue
                x = s["distance_value"].astype(float) + (0.06 * i)  # offset so the bars of systems do not overlap
                y = s["accuracy"].astype(float) * 100
                err = [y - s["wilson_lo"].astype(float) * 100, s["wilson_hi"].astype(float) * 100 - y]
                ax.errorbar(x, y, yerr=err, fmt=f"o{style}", color=color, capsize=3, markersize=4,
                            label=f"{labels.get(cfg, cfg[:8])} · k={k}")
        ax.set_xlabel("distance from the main claims (0 = most severe)")
        ax.set_ylabel("detected, % (Wilson 95%)")
        ax.set_ylim(-3, 103)
        ax.legend(fontsize=7, frameon=False)
        fig.tight_layout()
        return figures._png(fig)


def _overall(det: pd.DataFrame, labels: dict[str, str]) -> str:
    body = []
    for (cfg, k), g in det[det["distance"] == "all"].groupby(["reviewer_config", "k"], sort=True):
        row = dict(zip(g["item_set"], g.to_dict("records"), strict=True))
        cells = "".join(_rate_cell(row[s]) if s in row else f"<td>{_nm('no rows')}</td>" for s in ("all", "validated"))
        n = int(row["all"]["n_items"]) if "all" in row else 0
        body.append(f"<tr><td>{html.escape(labels.get(cfg, cfg[:8]))}</td><td>{k}</td><td>{n}</td>{cells}</tr>")
    return ("<table><tr><th>reviewer</th><th>k (any of)</th><th>items</th><th>detected, all items</th>"
            "<th>detected, validated items</th></tr>" + "".join(body) + "</table>")


def _audit(audit: pd.DataFrame | None) -> str:
    if audit is None or audit.empty:
        return f"<p>Judge audit: {_nm('no detection judgments')}.</p>"
    rows = []
    for r in audit[audit["reviewer_config"] == "all"].sort_values("measure").to_dict("records"):
        what = {"specificity": "specificity (reviews of the unmodified papers; right answer: no)",
                "sensitivity": "sensitivity (human-verified detections; right answer: yes)"}[r["measure"]]
        rows.append(f"<tr><td>{what}</td><td>{int(r['n_subjects'])}</td>{_rate_cell(r)}</tr>")
    return ("<h3>Detection judge audit</h3><table><tr><th>measure</th><th>(item, review) pairs</th>"
            "<th>rate [Wilson 95%]</th></tr>" + "".join(rows) + "</table>")


def section(data: ReportData, labels: dict) -> str:
    det = data.get(DETECTION)
    if det is None:
        return HEADING + f"<p class='note'>{_nm(data.missing.get(DETECTION, 'the mart is absent'))}</p>"
    if det.empty:
        return HEADING + f"<p>{_nm('no contradiction item of this study was judged')}</p>"
    judges = sorted(det["judge_config"].unique())
    note = "" if len(judges) == 1 else f"<p class='note'>{len(judges)} detection judge configurations: rows mixed.</p>"
    return (HEADING + "<p class='how'>Each item is one paragraph of a paper rewritten to contradict one node of the"
            " paper's knowledge graph; its distance is the node's shortest path to a main claim. A judge reads the"
            " original and modified paragraph and each review; an item counts as detected in a judge repeat when"
            " any of the first k reviews is judged to identify it, and the rate is the mean over items and"
            " repeats. Intervals: Wilson 95% with n = the items (not items × repeats). On the embedded 1.5B"
            " model these numbers exercise the pipeline; they say nothing about the systems.</p>" + note
            + f'<img src="{by_distance(det, labels)}" alt="detection rate by distance">'
            + _overall(det, labels) + _audit(data.get(AUDIT)))
