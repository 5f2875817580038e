"""The report's hidden-text section (the Multi-Layered Review paper): per reviewer configuration and injection method,
self Δ and judge Δ (mean ± SD over papers), the reviews that pointed out the hidden text, with the defence
(strip_hidden) marked; then the visibility check's recall, precision and false alarms. "not measured" and
why, never 0."""

import html

import pandas as pd

from peerlake.report import notes
from peerlake.report.data import ReportData

HEADING = "<h2>Hidden-text manipulation</h2>"
EFFECTS = "hidden_text_effects"
DETECTOR = "hidden_text_detector"
NEEDS: dict[str, list[str]] = {
    EFFECTS: ["reviewer_config", "reviewer", "is_defence", "method", "n_variants", "n_self_pairs", "self_delta_mean",
              "self_delta_sd", "self_null_reason", "n_judge_pairs", "judge_delta_mean", "judge_delta_sd",
              "judge_null_reason", "n_reviews_judged", "n_reviews_mentioning", "mention_null_reason"],
    DETECTOR: ["method", "n_variants", "n_in_package", "n_not_in_package", "n_detected", "recall", "recall_null_reason",
               "n_clean_papers", "n_false_alarm_papers", "false_alarm_rate", "precision", "precision_null_reason",
               "n_other_records_flagged"],
}


def _nm(why) -> str:
    return f"<td><span class='nm'>not measured: {html.escape(str(why))}</span></td>"


def _delta(mean, sd, n, why) -> str:
    if pd.isna(mean):
        return _nm(why if isinstance(why, str) else "no rows")
    spread = f" ± {sd:.2f}" if pd.notna(sd) else " (SD needs 2 papers)"
    return f"<td>{mean:+.2f}{html.escape(spread)} <small>(n={int(n)})</small></td>"


def _rate(v, why) -> str:
    return f"<td>{v:.1%}</td>" if pd.notna(v) else _nm(why if isinstance(why, str) else "no rows")


def effects_table(df: pd.DataFrame, labels: dict[str, str]) -> str:
    rows = []
    for r in df.sort_values(["method", "is_defence", "reviewer_config"]).to_dict("records"):
        name = labels.get(r["reviewer_config"]) or f"{r['reviewer'] or '?'} · {r['reviewer_config'][:8]}"
        mentions = (_nm(r["mention_null_reason"]) if pd.isna(r["n_reviews_mentioning"])
                    else f"<td>{int(r['n_reviews_mentioning'])} of {int(r['n_reviews_judged'])}</td>")
        rows.append(f"<tr><td>{html.escape(name)}</td><td>{'yes' if r['is_defence'] else 'no'}</td>"
                    f"<td>{html.escape(r['method'])}</td><td>{int(r['n_variants'])}</td>"
                    f"{_delta(r['self_delta_mean'], r['self_delta_sd'], r['n_self_pairs'], r['self_null_reason'])}"
                    f"{_delta(r['judge_delta_mean'], r['judge_delta_sd'], r['n_judge_pairs'], r['judge_null_reason'])}"
                    f"{mentions}</tr>")
    return ("<table><tr><th>reviewer</th><th>defence (strip_hidden)</th><th>method</th><th>papers</th>"
            "<th>self Δ</th><th>judge Δ</th><th>reviews pointing it out</th></tr>" + "".join(rows) + "</table>")


def detector_table(df: pd.DataFrame) -> str:
    rows = []
    for r in df.sort_values("method").to_dict("records"):
        rows.append(f"<tr><td>{html.escape(r['method'])}</td><td>{int(r['n_variants'])}</td>"
                    f"<td>{int(r['n_not_in_package'])}</td>"
                    f"{_rate(r['recall'], r['recall_null_reason'])}"
                    f"{_rate(r['precision'], r['precision_null_reason'])}"
                    f"<td>{int(r['n_false_alarm_papers'])} of {int(r['n_clean_papers'])}</td>"
                    f"<td>{int(r['n_other_records_flagged'])}</td></tr>")
    return ("<table><tr><th>method</th><th>variants</th><th>text not in the package</th><th>recall</th>"
            "<th>precision</th><th>clean papers flagged</th><th>other records flagged on variants</th></tr>"
            + "".join(rows) + "</table>")


def section(data: ReportData, labels: dict) -> str:
    effects, detector = data.get(EFFECTS), data.get(DETECTOR)
    if effects is None and detector is None:
        return HEADING + notes.missing("Hidden-text manipulation", EFFECTS, data.missing.get(EFFECTS, "is not there"))
    parts = [HEADING, "<p>Δ = score on the version with hidden text − score on the clean version, mean ± SD over "
             "papers. Self Δ: the system's own score; judge Δ: the score predicted from the review text. The "
             "defence reads the manuscript without the records the visibility check flagged.</p>"]
    if effects is None or effects.empty:
        parts.append("<p><span class='nm'>not measured: no reviewer reviewed both versions of a paper "
                     "(does the study have [hidden_text] and reviewers?)</span></p>")
    else:
        parts.append(effects_table(effects, labels))
    if detector is None or detector.empty:
        parts.append("<p><span class='nm'>not measured: no hidden-text variant in the study</span></p>")
    else:
        parts.append("<h3>The visibility check at ingest</h3>" + detector_table(detector))
    return "\n".join(parts)
