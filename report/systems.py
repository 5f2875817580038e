"""The report's reviewer-systems section: per system configuration of the study, what it wrote (reviews, null
reviews and why), its score distribution, repeatability and validity where it gives scores, its PRISM profile
where judges read it, and what a review cost on peerlake's price table beside the literature's figure. What a
mart does not measure says "not measured" and why, never 0."""

import html

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData
from peerlake.report.quality import PROFILE

HEADING = "<h2>Reviewer systems</h2>"
SUMMARY = "system_summary"
COSTS = "system_review_costs"


def _not_measured(why: str) -> str:
    return f"<span class='nm'>not measured: {html.escape(why)}</span>"


def _num(v, nd: int = 2, prefix: str = "") -> str | None:
    return None if v is None or pd.isna(v) else f"{prefix}{v:,.{nd}f}"


def _cell(value: str | None, why: str) -> str:
    return f"<td>{html.escape(value)}</td>" if value is not None else f"<td>{_not_measured(why)}</td>"


def _usd(v) -> str | None:
    return _num(v, 4, "$")


def _row(r: dict, rep: pd.DataFrame | None, val: pd.DataFrame | None) -> str:
    scored = bool(r["is_scored"])
    no_score = "the system gives no score"
    n_unknown = int(r["n_reviews_cost_unknown"])
    cost_why = f"{n_unknown} review(s) with an unpriced call" if n_unknown else "no review"
    nulls = str(int(r["n_null_reviews"]))
    if r["n_null_reviews"] and isinstance(r.get("top_null_reason"), str):
        nulls += f" (most: {r['top_null_reason'][:80]})"
    score = None
    if scored and pd.notna(r.get("score_mean")):
        score = f"{r['score_mean']:.2f}" + (f" ± {r['score_sd']:.2f}" if pd.notna(r.get("score_sd")) else "")
    sd = _num(r.get("within_paper_sd")) if scored else None
    sd_why = no_score if not scored else "no paper with two parsed scores"
    if scored and rep is not None and sd is None:
        hit = rep[rep["reviewer_config"] == r["system_config"]]
        if len(hit) and pd.notna(hit["within_paper_sd"].iloc[0]):
            sd = _num(hit["within_paper_sd"].iloc[0])
    validity, val_why = None, (no_score if not scored else "no human scores of these papers")
    if scored and val is not None and "spearman" in val:
        hit = val[(val["reviewer_config"] == r["system_config"]) & (val["scope"] == "all")]
        if len(hit) and pd.notna(hit["spearman"].iloc[0]):
            validity = f"{hit['spearman'].iloc[0]:.2f} ({int(hit['n_papers'].iloc[0])} papers)"
    lit = _usd(r.get("reference_cost_per_review_usd"))
    cells = [f"<td>{html.escape(str(r['system_name']))} · {html.escape(str(r['model']))} · "
             f"{html.escape(str(r['system_config'])[:8])}</td>",
             f"<td>{int(r['n_papers'])}</td>", f"<td>{int(r['n_reviews'])}</td>", f"<td>{html.escape(nulls)}</td>",
             _cell(_num(r.get("calls_per_review_mean"), 1), "no calls"),
             _cell(_num(r.get("input_tokens_per_review_mean"), 0), "no usage recorded"),
             _cell(_num(r.get("output_tokens_per_review_mean"), 0), "no usage recorded"),
             _cell(_usd(r.get("cost_per_review_mean_usd")), cost_why),
             _cell(lit, "none reported") if lit is None else
             f"<td title='{html.escape(str(r.get('reference_source') or ''))}'>{lit}</td>",
             _cell(_usd(r.get("cost_per_paper_mean_usd")), cost_why),
             _cell(_num(r.get("wall_seconds_per_review_mean"), 1), "no latency recorded"),
             _cell(score, no_score if not scored else "no parsed score"),
             _cell(sd, sd_why), _cell(validity, val_why)]
    return "<tr>" + "".join(cells) + "</tr>"


HEAD = ["system · model · config", "papers", "reviews", "null reviews", "calls / review", "input tokens / review",
        "output tokens / review", "cost / review (peerlake prices)", "literature cost / review", "cost / paper",
        "wall s / review", "score mean ± SD", "within-paper SD", "validity (Spearman)"]


def _table(summary: pd.DataFrame, data: ReportData) -> str:
    rep, val = data.get("reliability_repeatability"), data.get("reliability_validity")
    body = "".join(_row(r, rep, val) for r in summary.sort_values(["system_name", "system_config"]).to_dict("records"))
    return ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in HEAD) + "</tr>" + body + "</table>")


def _scores(costs: pd.DataFrame | None, labels: dict[str, str]) -> str:
    if costs is None:
        return f"<p class='note'>Score distributions: {_not_measured(f'{COSTS} is not built')}.</p>"
    scored = costs[costs["is_scored"].astype(bool)]
    if scored.empty or scored["overall_score"].notna().sum() == 0:
        return f"<p>Score distributions: {_not_measured('no system of this study gave a parsed score')}.</p>"
    frame = scored.assign(reviewer_config=scored["system_config"], is_parsed=scored["overall_score"].notna())
    return (f'<img src="{figures.score_histograms(frame, labels)}" alt="score distribution per system">'
            + audit_block(COSTS, scored, "each system review"))


def cost_bars(summary: pd.DataFrame, labels: dict[str, str]) -> str:
    """Per system configuration: the mean cost of one review on peerlake's price table beside the literature's."""
    rows = summary.sort_values(["system_name", "system_config"])
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(7, 0.55 * len(rows) + 1.0))
        y = np.arange(len(rows))
        ours = rows["cost_per_review_mean_usd"].astype(float)
        lit = rows["reference_cost_per_review_usd"].astype(float)
        ax.barh(y - 0.18, ours.fillna(0), height=0.34, color="#4C72B0", label="peerlake (its price table)")
        ax.barh(y + 0.18, lit.fillna(0), height=0.34, color="#8C8C8C", label="literature")
        for yi, o, li in zip(y, ours, lit, strict=True):
            ax.text(o if pd.notna(o) else 0, yi - 0.18, f" ${o:.4f}" if pd.notna(o) else " not measured", va="center",
                    fontsize=7)
            ax.text(li if pd.notna(li) else 0, yi + 0.18, f" ${li:.2f}" if pd.notna(li) else " none reported",
                    va="center", fontsize=7, color="#555")
        ax.set_yticks(y, [labels.get(c, f"{s} · {c[:8]}") for c, s in zip(rows["system_config"], rows["system_name"],
                                                                            strict=True)])
        ax.invert_yaxis()
        ax.set_xlabel("USD per review of one paper")
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        return figures._png(fig)


def _prism(summary: pd.DataFrame, data: ReportData, labels: dict[str, str]) -> str:
    q = data.get("quality_comparison")
    configs = list(summary["system_config"])
    if q is None:
        return f"<p>PRISM profile: {_not_measured(data.missing.get('quality_comparison', 'no judgments'))}.</p>"
    q = q[q["system"].isin(configs)]
    if q.empty:
        return f"<p>PRISM profile: {_not_measured('no judge read these systems’ reviews in this study')}.</p>"
    head = "<tr><th>system</th>" + "".join(f"<th>{html.escape(t)}</th>" for _, t in PROFILE) + "</tr>"
    body = []
    for cfg in configs:
        m = q[q["system"] == cfg].set_index("metric")
        cells = [_cell(_num(m.loc[k, "mean_system"], 3) if k in m.index else None,
                       "not judged" if m.empty else "no such judgment") for k, _ in PROFILE]
        body.append(f"<tr><td>{html.escape(labels.get(cfg, cfg[:8]))}</td>{''.join(cells)}</tr>")
    return ("<p class='how'>Means of each system's reviews (per paper, then over papers) as the PRISM judges scored"
            " them; the full comparison with the human reviews is in the next section.</p><table>" + head
            + "".join(body) + "</table>" + audit_block("quality_comparison", q, "the profiles"))


def section(data: ReportData, labels: dict[str, str]) -> str:
    """The systems' table, score distributions, cost figure and PRISM profile; one line when the study runs no
    system, a note when the mart is absent."""
    summary = data.get(SUMMARY)
    if summary is None:
        return HEADING + notes.missing("Reviewer systems", SUMMARY, data.missing.get(SUMMARY, "is not there"))
    if summary.empty:
        return HEADING + "<p>This study runs no reviewer system.</p>"
    labels = {**labels, **{c: f"{s} · {m} · {c[:8]}" for c, s, m in
                           zip(summary["system_config"], summary["system_name"], summary["model"], strict=True)}}
    return (HEADING + "<p class='how'>Each system's reviews of the study's papers. A review's cost counts every call"
            " it is made of, replayed ones too (what it costs to make), priced with the lake's price table; the"
            " literature's figure is for one review of one paper on hosted models (the MLR paper). Wall time"
            " is the critical path: per step and round the slowest parallel member. Scores, within-paper SD and"
            " validity are those of the reliability marts for the system's configuration.</p>"
            + _table(summary, data) + audit_block(SUMMARY, summary)
            + f'<img src="{cost_bars(summary, labels)}" alt="cost per review per system">'
            + _scores(data.get(COSTS), labels) + _prism(summary, data, labels))
