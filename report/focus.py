"""The report's focus section: what the study's reviewers talk about. Stacked bars of
the four focus distributions ({strengths, weaknesses} × {target, aspect}), one bar per reviewer with the
humans first, and the KL divergence of each system from the humans. What is not measured says so and why."""

import html

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData

HEADING = "<h2>Focus: what do the reviews talk about?</h2>"
DIST = "focus_distributions"
DIV = "focus_divergence"
NEEDS: dict[str, list[str]] = {
    DIST: ["study_id", "focus_distribution_id", "reviewer_config", "reviewer_label", "polarity", "dimension",
           "label", "n_items", "n_items_total", "share", "n_reviews", "n_reviews_labelled", "n_taxonomies"],
    DIV: ["study_id", "focus_divergence_id", "reviewer_config", "reviewer_label", "kl_strength_target",
          "kl_strength_aspect", "kl_weakness_target", "kl_weakness_aspect", "kl_mean", "null_reason"],
}
PANELS = [("strength", "target"), ("strength", "aspect"), ("weakness", "target"), ("weakness", "aspect")]
COMPONENTS = [f"kl_{p}_{d}" for p, d in PANELS]
PLURAL = {"strength": "strengths", "weakness": "weaknesses"}


def _not_measured(why: str) -> str:
    return f"<span class='nm'>not measured: {html.escape(why)}</span>"


def _name(cfg: str, label, labels: dict[str, str]) -> str:
    if cfg == "human":
        return "human reviewers"
    return labels.get(cfg) or f"{label} · {cfg[:8]}"


def _order(dist: pd.DataFrame) -> list[str]:
    configs = sorted(c for c in dist["reviewer_config"].unique() if c != "human")
    return (["human"] if (dist["reviewer_config"] == "human").any() else []) + configs


def stacked_bars(dist: pd.DataFrame, labels: dict[str, str]) -> str:
    """Four panels; in each, one horizontal bar per reviewer split into the labels' shares."""
    order = _order(dist)
    names = {c: _name(c, dist.loc[dist["reviewer_config"] == c, "reviewer_label"].iloc[0], labels) for c in order}
    with plt.rc_context(figures.STYLE):
        fig, axes = plt.subplots(2, 2, figsize=(11, 2.4 + 0.9 * len(order)), squeeze=False)
        for ax, (pol, dim) in zip(axes.flat, PANELS, strict=True):
            panel = dist[(dist["polarity"] == pol) & (dist["dimension"] == dim)]
            cats = sorted(panel["label"].unique())
            colours = plt.get_cmap("tab10" if len(cats) <= 10 else "tab20")(np.arange(len(cats)))
            y = np.arange(len(order))
            left = np.zeros(len(order))
            for colour, cat in zip(colours, cats, strict=True):
                share = [_share(panel, c, cat) for c in order]
                ax.barh(y, share, left=left, color=colour, label=cat.replace("_", " "), edgecolor="white")
                left += np.array(share)
            for yi, cfg in zip(y, order, strict=True):
                n = int(panel.loc[panel["reviewer_config"] == cfg, "n_items_total"].max() or 0)
                ax.text(1.01, yi, f"n={n}" if n else "no items", va="center", fontsize=7,
                        color="#333" if n else "#8a6d00")
            ax.set_yticks(y, [names[c] for c in order], fontsize=8)
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.set_title(f"{PLURAL[pol]} · {dim} (share of items)", fontsize=9)
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=min(4, len(cats)),
                      frameon=False)
        fig.tight_layout()
        return figures._png(fig)


def _share(panel: pd.DataFrame, cfg: str, cat: str) -> float:
    hit = panel[(panel["reviewer_config"] == cfg) & (panel["label"] == cat)]["share"]
    return float(hit.iloc[0]) if len(hit) and pd.notna(hit.iloc[0]) else 0.0  # a bar with no items stays empty


def _kl_table(div: pd.DataFrame | None, why_missing: str, labels: dict[str, str]) -> str:
    if div is None:
        return f"<p>KL divergence from the human reviews: {_not_measured(why_missing)}.</p>"
    if div.empty:
        return f"<p>KL divergence from the human reviews: {_not_measured('no system reviews were labelled')}.</p>"
    head = ("<tr><th>reviewer</th>" + "".join(f"<th>{PLURAL[p]} · {d}</th>" for p, d in PANELS)
            + "<th>mean KL</th></tr>")
    body = []
    for r in div.sort_values("reviewer_config").to_dict("records"):
        why = str(r.get("null_reason") or "a side has no items")
        cells = [f"<td>{r[c]:.3f}</td>" if pd.notna(r[c]) else f"<td>{_not_measured(why)}</td>"
                 for c in [*COMPONENTS, "kl_mean"]]
        body.append(f"<tr><td>{html.escape(_name(r['reviewer_config'], r['reviewer_label'], labels))}</td>"
                    + "".join(cells) + "</tr>")
    return "<table>" + head + "".join(body) + "</table>" + audit_block(DIV, div, "the divergences")


def section(data: ReportData, labels: dict) -> str:
    """Stacked focus bars per reviewer against the humans and the KL table; a note when not measured."""
    dist = data.get(DIST)
    if dist is None:
        return HEADING + notes.missing("Focus", DIST, data.missing.get(DIST, "is not there"))
    if dist.empty:
        why = "no focus judgments in this study (add a [focus] table to the study and run it)"
        return HEADING + f"<p>Focus {_not_measured(why)}.</p>"
    mixed = ""
    if int(dist["n_taxonomies"].max() or 0) > 1:
        mixed = ("<p class='note'>The study's judgments were made with more than one taxonomy file: the "
                 "divergences are not measured until every review is labelled with one.</p>")
    return (HEADING + "<p class='how'>Each review's strengths and weaknesses are split into items and each item is"
            " labelled with a target (what part of the paper) and an aspect (what quality) from the study's"
            " taxonomy file by the focus judge. A bar is one reviewer's items pooled over its reviews; KL("
            "P<sub>human</sub> ‖ P<sub>system</sub>) in nats, each share smoothed by ε = 10<sup>−6</sup> and"
            " renormalized over the taxonomy's labels (the Multi-Layered Review paper).</p>" + mixed
            + f'<img src="{stacked_bars(dist, labels)}" alt="focus distributions per reviewer">'
            + audit_block(DIST, dist, "the distributions")
            + _kl_table(data.get(DIV), data.missing.get(DIV, "not built"), labels))
