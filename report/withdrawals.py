"""The report's withdrawals section (the Multi-Layered Review paper): for the study's withdrawn papers, how often each
reviewer configuration's reviews name the problem the authors gave for withdrawing (Exact) or a related one
(Similar), from the `withdrawal_detection` mart. A table per judge configuration and a bar chart of the share
of all withdrawn papers matched; what the mart cannot say is "not measured" with the reason, never 0."""

import html

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData

HEADING = "<h2>Withdrawn papers: do the reviews find the authors' reason?</h2>"
MART = "withdrawal_detection"
LEVELS = ("exact", "similar")
NEEDS: dict[str, list[str]] = {MART: [
    "withdrawal_detection_id", "study_id", "source", "reviewer_config", "reviewer_label", "judge_config",
    "match_level", "n_papers", "n_papers_reviewed", "n_reviews", "n_repeats", "n_paper_repeats_decided",
    "n_paper_repeats_matched", "n_null_judgments", "n_reviews_not_judged", "matched_count", "accuracy",
    "accuracy_of_all", "accuracy_null_reason"]}
WHY = {"not_judged": "no review of this configuration judged against the paper's newest withdrawal note"}


def _nm(why: str) -> str:
    return f"<span class='nm'>not measured: {html.escape(why)}</span>"


def _label(r: dict) -> str:
    label = str(r.get("reviewer_label") or r["reviewer_config"])
    return label if r["source"] != "peerlake" else f"{label} · {str(r['reviewer_config'])[:8]}"


def _pct(v) -> str | None:
    return None if v is None or pd.isna(v) else f"{100 * float(v):.1f} %"


def _level_cells(r: dict | None) -> str:
    if r is None:
        return f"<td colspan='3'>{_nm('this level was not judged')}</td>"
    acc = _pct(r["accuracy"])
    why = WHY.get(r.get("accuracy_null_reason"), str(r.get("accuracy_null_reason") or "no decided paper"))
    count = float(r["matched_count"])
    count_text = f"{count:g}" if int(r["n_repeats"]) == 1 else f"{count:.2f} (mean of {int(r['n_repeats'])} repeats)"
    return (f"<td>{html.escape(count_text)} / {int(r['n_papers'])}</td>"
            f"<td>{html.escape(_pct(r['accuracy_of_all']))}</td>"
            + (f"<td>{html.escape(acc)}</td>" if acc is not None else f"<td>{_nm(why)}</td>"))


def _table(rows: pd.DataFrame) -> str:
    head = ("<tr><th rowspan='2'>reviewer</th><th rowspan='2'>papers reviewed</th><th rowspan='2'>reviews</th>"
            + "".join(f"<th colspan='3'>{lvl.capitalize()}</th>" for lvl in LEVELS)
            + "<th rowspan='2'>null judgments / not judged</th></tr><tr>"
            + "<th>matched</th><th>of all withdrawn</th><th>of decided</th>" * len(LEVELS) + "</tr>")
    body = []
    for _, grp in rows.groupby(["source", "reviewer_config"], sort=True):
        by_level = {r["match_level"]: r for r in grp.to_dict("records")}
        first = next(iter(by_level.values()))
        n_null = int(grp["n_null_judgments"].sum())
        n_not = int(grp["n_reviews_not_judged"].sum())
        body.append(f"<tr><td>{html.escape(_label(first))}</td><td>{int(first['n_papers_reviewed'])}</td>"
                    f"<td>{int(first['n_reviews'])}</td>" + "".join(_level_cells(by_level.get(lvl)) for lvl in LEVELS)
                    + f"<td>{n_null} / {n_not}</td></tr>")
    return "<table>" + head + "".join(body) + "</table>"


def bars(rows: pd.DataFrame) -> str:
    """Per reviewer configuration: the share of all withdrawn papers matched, Exact and Similar side by side."""
    configs = sorted({(r["source"], r["reviewer_config"], _label(r)) for r in rows.to_dict("records")})
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(7, 0.55 * len(configs) + 1.0))
        y = np.arange(len(configs))
        for k, (lvl, color) in enumerate(zip(LEVELS, ("#4C72B0", "#DD8452"), strict=True)):
            values = []
            for source, cfg, _ in configs:
                hit = rows[(rows["source"] == source) & (rows["reviewer_config"] == cfg) & (rows["match_level"] == lvl)]
                values.append(100 * float(hit["accuracy_of_all"].iloc[0]) if len(hit) else np.nan)
            off = -0.18 if k == 0 else 0.18
            ax.barh(y + off, np.nan_to_num(values), height=0.34, color=color, label=lvl.capitalize())
            for yi, v in zip(y, values, strict=True):
                ax.text(0 if np.isnan(v) else v, yi + off, " not judged" if np.isnan(v) else f" {v:.1f} %",
                        va="center", fontsize=7)
        ax.set_yticks(y, [label for *_, label in configs])
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of the study's withdrawn papers whose reason a review of it names")
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        return figures._png(fig)


def section(data: ReportData, labels: dict) -> str:
    """Nothing when the study has no withdrawal judgments and the mart is built; a note when it is absent."""
    df = data.get(MART)
    if df is None:
        return HEADING + notes.missing("Withdrawn papers", MART, data.missing.get(MART, "is not there"))
    if df.empty:
        return ""  # the study runs no [withdrawals] experiment (or has no withdrawn paper judged yet)
    out = [HEADING, "<p class='how'>Each withdrawn paper's newest withdrawal comment (its authors' reason) against"
           " the reviews of it. A judge answers per review: Exact = the review names the same problem, Similar ="
           " a related one. A paper counts as matched when any of a configuration's reviews of it matches."
           " <i>Of all withdrawn</i> divides by every withdrawn paper of the study (unreviewed or unjudged ones"
           " count as not found, as the source's counts out of 211 do); <i>of decided</i> leaves out papers whose"
           " reviews are not all judged. On the embedded 1.5B model these numbers exercise the pipeline; they do"
           " not measure a reviewer.</p>"]
    for judge_config, rows in df.groupby("judge_config", sort=True):
        out.append(f"<h3>Judge configuration {html.escape(str(judge_config)[:16])}</h3>" + _table(rows)
                   + f'<img src="{bars(rows)}" alt="withdrawal reasons found per reviewer">'
                   + audit_block(MART, rows, "these rows"))
    return "".join(out)
