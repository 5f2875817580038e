"""The report's review-quality section: the headline metrics of every judge the study ran, per source of
reviews (the quality_sources mart, plug-in judges included), then each system's PRISM profile beside the
human reviews of the same papers (the quality_comparison mart)."""

import html

import pandas as pd

from peerlake.judging.registry import review_metrics
from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData

TABLE = "quality_comparison"
SOURCES = "quality_sources"
HEADING = "<h2>Review quality against the human reviews</h2>"
# The quality judges' headline metrics, in judge order (for PRISM's four dimensions: DoA, NS, flaws twice —
# what is found, and whether the critical is said first — and MCS), and every metric in declaration order.
PROFILE = [(m.name, m.label) for m in review_metrics() if m.headline]
METRIC_ORDER = [m.name for m in review_metrics()]


def _num(v, nd: int = 3) -> str:
    return "—" if v is None or pd.isna(v) else f"{v:.{nd}f}"


def _with_ci(est, lo, hi) -> str:
    return _num(est) + (f" [{_num(lo)}, {_num(hi)}]" if pd.notna(lo) else "")


def _p(v) -> str:
    return "—" if pd.isna(v) else ("< 0.001" if v < 0.001 else f"{v:.3f}")


def _table(rows: pd.DataFrame, labels: dict[str, str]) -> str:
    head = ["system", "metric", "pairs", "system mean [95% CI]", "human mean [95% CI]", "difference [95% CI]",
            "Wilcoxon p", "Holm p", "Cliff's δ", "note"]
    body = []
    for r in rows.to_dict("records"):
        delta = "—" if pd.isna(r["cliffs_delta"]) else f"{r['cliffs_delta']:.2f} ({r['magnitude']})"
        note = r["skip_reason"] if pd.notna(r["skip_reason"]) else (r.get("wilcoxon_note") or "")
        cells = [labels.get(r["system"], r["system"]), r["metric"], str(r["n_pairs"]),
                 _with_ci(r["mean_system"], r.get("mean_system_ci_low"), r.get("mean_system_ci_high")),
                 _with_ci(r["mean_human"], r.get("mean_human_ci_low"), r.get("mean_human_ci_high")),
                 _with_ci(r["mean_diff"], r.get("ci_low"), r.get("ci_high")), _p(r.get("wilcoxon_p")),
                 _p(r.get("holm_p")), delta, "" if pd.isna(note) else note]
        body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
            + "".join(body) + "</table>")


def judged_reviews(sources: pd.DataFrame | None, labels: dict[str, str]) -> str:
    """Each judge's headline metrics averaged over the judged reviews of each source (humans, each system),
    with how many reviews have a value: what the study's judges said, paired or not (the quality_sources
    mart computes them). Empty when no review was judged."""
    if sources is None or sources.empty:
        return ""
    have = sources[sources["n_values"] > 0]
    metrics = [(m, label) for m, label in PROFILE if (have["metric"] == m).any()]
    if not metrics:
        return ""
    head = ["reviews of", "judged", *(label for _, label in metrics)]
    body = []
    for who, group in sources.groupby("reviewed_by", sort=True):
        by_metric = {r["metric"]: r for r in group.to_dict("records")}
        cells = [str(labels.get(who, who)), str(int(group["n_reviews_judged"].max()))]
        cells += [f"{_num(by_metric[m]['mean_value'])} (n={int(by_metric[m]['n_values'])})" if m in by_metric
                  else "— (n=0)" for m, _ in metrics]
        body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    shown = sources[sources["metric"].isin([m for m, _ in metrics])]
    return ("<p class='how'>Each judge's headline metrics, averaged over the judged reviews of each source (n: the"
            " reviews with a value; a null one says why in <code>quality_reviews.null_reasons</code>).</p>"
            "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(body)
            + "</table>" + audit_block(SOURCES, shown))


def section(data: ReportData, labels: dict[str, str]) -> str:
    """The judged reviews' headline metrics, then the profile figure and the full comparison table; a note
    when the comparison mart is absent, one line when the study has nothing to compare."""
    judged = judged_reviews(data.get(SOURCES), labels)
    rows = data.get(TABLE)
    if rows is None:
        return HEADING + judged + notes.missing("Review quality", TABLE, data.missing.get(TABLE, "is not there"))
    if rows.empty:
        return HEADING + (judged + "<p>No system reviews paired with human ones in this study.</p>" if judged
                          else "<p>No judgments in this study.</p>")
    order = {m: i for i, m in enumerate(METRIC_ORDER)}
    rows = rows.assign(_order=rows["metric"].map(order).fillna(len(order))).sort_values(
        ["system", "_order", "metric"]).drop(columns="_order")
    panels = [(m, t) for m, t in PROFILE if (rows["metric"] == m).any()]
    figure = (f'<img src="{figures.quality_profile(rows, panels, labels)}" alt="quality profile per system">'
              if panels else "")
    boot = f"{int(rows['n_resamples'].max()):,} resamples, seed {int(rows['bootstrap_seed'].max())}"
    return (HEADING + judged + "<p class='how'>Every system's reviews of a paper averaged, paired with the human"
            " reviews of the same paper (for flaws: the humans of the same pool). Intervals: paired paper-bootstrap 95%"
            f" ({boot}); difference = system − human; Wilcoxon signed-rank, Holm-corrected across the metrics"
            " of a system; Cliff's δ with its band. Fewer than 10 pairs: means only.</p>"
            + figure + _table(rows, labels) + audit_block(TABLE, rows))
