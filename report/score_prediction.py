"""The report's score-prediction section: how well the score predicted from each reviewer's
text (numbers removed, the venue's rubric) tracks the human mean rating, per venue-year, with the
predictor reading the human reviews as the reference row; box plots of the papers' predicted scores,
accepted against rejected, per reviewer; and the text overlap with the human reviews. What a mart does
not measure says "not measured" and why, never 0."""

import html

import matplotlib.pyplot as plt
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData

HEADING = "<h2>Score prediction from review text</h2>"
CORR = "score_prediction_correlations"
PAPERS = "score_prediction_papers"
OVERLAP = "text_overlap"
NEEDS: dict[str, list[str]] = {
    CORR: ["judge_config", "source", "reviewer", "venue", "venue_year", "is_reference", "n_papers", "pearson",
           "spearman", "kendall_tau_b", "null_reason"],
    PAPERS: ["judge_config", "source", "reviewer", "paper_id", "predicted_score", "acceptance_label", "is_variant"],
    OVERLAP: ["source", "reviewer", "is_reference", "n_reviews", "n_reviews_compared", "n_pairs", "rouge_1", "rouge_l",
              "bleu_4", "bertscore_status", "null_reason"],
}


def _nm(why: str) -> str:
    return f"<span class='nm'>not measured: {html.escape(str(why))}</span>"


def _name(source: str, reviewer: str, labels: dict) -> str:
    if source == "human":
        return "human reviews (reference)"
    return labels.get(reviewer, reviewer if source == "external" else str(reviewer)[:8])


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    """The reference row first, then the reviewers by name."""
    return frame.assign(_ref=frame["source"] != "human").sort_values(["_ref", "reviewer"]).drop(columns="_ref")


def _venue(v, y) -> str:
    return f"{v} · {int(y)}" if pd.notna(y) else str(v)


def _correlations(corr: pd.DataFrame, labels: dict) -> str:
    venues = corr[["venue", "venue_year"]].drop_duplicates().sort_values(["venue", "venue_year"])
    cols = [(v, y) for v, y in venues.itertuples(index=False)]
    multi = corr["judge_config"].nunique() > 1
    head = "<tr><th>reviewer</th>" + "".join(f"<th>{html.escape(_venue(v, y))}<br>r / ρ / τ-b (n)</th>"
                                             for v, y in cols) + "</tr>"
    body = []
    for (jc, source, reviewer), g in _order(corr).groupby(["judge_config", "source", "reviewer"], sort=False):
        name = _name(source, reviewer, labels) + (f" · judge {str(jc)[:8]}" if multi else "")
        cells = []
        for v, y in cols:
            hit = g[(g["venue"] == v) & ((g["venue_year"] == y) if pd.notna(y) else g["venue_year"].isna())]
            if hit.empty:
                cells.append(f"<td>{_nm('no papers of this venue')}</td>")
                continue
            r = hit.iloc[0]
            if pd.isna(r["pearson"]):
                cells.append(f"<td>{_nm(f'{r.null_reason} (n = {int(r.n_papers)})')}</td>")
            else:
                cells.append(f"<td>{r.pearson:.2f} / {r.spearman:.2f} / {r.kendall_tau_b:.2f} ({int(r.n_papers)})</td>")
        body.append(f"<tr><td>{html.escape(name)}</td>{''.join(cells)}</tr>")
    return ("<table>" + head + "".join(body) + "</table>" + _baselines(corr, labels)
            + audit_block(CORR, corr, "the correlations"))


def _baselines(corr: pd.DataFrame, labels: dict) -> str:
    """Each reviewer's MAE and Spearman ρ beside a constant's MAE and review length's ρ, same papers."""
    if "baseline_constant_mae" not in corr:
        return ""

    def num(x) -> str:
        return "—" if pd.isna(x) else f"{x:.2f}"

    rows = []
    for r in _order(corr).itertuples(index=False):
        rows.append(f"<tr><td>{html.escape(_name(r.source, r.reviewer, labels))}</td>"
                    f"<td>{html.escape(_venue(r.venue, r.venue_year))}</td><td>{num(r.mae)}</td>"
                    f"<td>{num(r.baseline_constant_mae)}</td><td>{num(r.spearman)}</td>"
                    f"<td>{num(r.baseline_length_spearman)}</td></tr>")
    return ("<p>Against trivial baselines on the same papers: a constant (the papers' mean human rating) and the "
            "review's length alone.</p><table><tr><th>reviewer</th><th>venue</th><th>MAE</th>"
            "<th>MAE of the constant</th><th>Spearman ρ</th><th>ρ of length</th></tr>" + "".join(rows) + "</table>")


def box_plots(papers: pd.DataFrame, labels: dict) -> str:
    """One pair of boxes per reviewer: the papers' predicted scores, accepted beside rejected."""
    groups = list(_order(papers).groupby(["source", "reviewer"], sort=False))
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(max(4.0, 1.5 * len(groups) + 1.5), 3.2))
        ticks, names = [], []
        for i, ((source, reviewer), g) in enumerate(groups):
            for j, (label, color) in enumerate(((1, "#55A868"), (0, "#C44E52"))):
                vals = g.loc[g["acceptance_label"] == label, "predicted_score"].astype(float).dropna()
                if len(vals):
                    box = ax.boxplot(vals, positions=[3 * i + j], widths=0.8, patch_artist=True, showmeans=True)
                    box["boxes"][0].set_facecolor(color)
            ticks.append(3 * i + 0.5)
            names.append(_name(source, reviewer, labels))
        ax.set_xticks(ticks, names, rotation=20, ha="right", fontsize=7)
        ax.set_ylabel("predicted score (paper mean)")
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in ("#55A868", "#C44E52")]
        ax.legend(handles, ["accepted", "rejected"], fontsize=7, loc="best")
        fig.tight_layout()
        return figures._png(fig)


def _boxes(papers: pd.DataFrame | None, why: str, labels: dict) -> str:
    if papers is None:
        return f"<p>Accepted vs rejected: {_nm(why)}.</p>"
    decided = papers[~papers["is_variant"].astype(bool) & papers["acceptance_label"].notna()
                     & papers["predicted_score"].notna()]
    if decided.empty:
        return f"<p>Accepted vs rejected: {_nm('no paper with both a decision and a predicted score')}.</p>"
    return ("<p class='how'>Each paper's predicted score (the mean over its reviews by that reviewer), accepted"
            " papers beside rejected ones; the triangle is the mean.</p>"
            f'<img src="{box_plots(decided, labels)}" alt="predicted scores, accepted vs rejected">'
            + audit_block(PAPERS, decided, "the papers behind the boxes"))


def _overlap(ov: pd.DataFrame | None, why: str, labels: dict) -> str:
    if ov is None:
        return f"<p>Text overlap: {_nm(why)}.</p>"
    if ov.empty:
        return f"<p>Text overlap: {_nm('no reviews in this study')}.</p>"
    head = ("<tr><th>reviewer</th><th>reviews compared</th><th>pairs</th><th>ROUGE-1</th><th>ROUGE-L</th>"
            "<th>BLEU-4</th><th>BERTScore</th></tr>")
    body = []
    for r in _order(ov).itertuples(index=False):
        if r.n_reviews_compared == 0:
            cells = f"<td>0 of {int(r.n_reviews)}</td><td>0</td>" + f"<td>{_nm(r.null_reason)}</td>" * 3
        else:
            vals = "".join(f"<td>{v:.3f}</td>" if pd.notna(v) else f"<td>{_nm('every text under 4 tokens')}</td>"
                           for v in (r.rouge_1, r.rouge_l, r.bleu_4))
            cells = f"<td>{int(r.n_reviews_compared)} of {int(r.n_reviews)}</td><td>{int(r.n_pairs)}</td>{vals}"
        body.append(f"<tr><td>{html.escape(_name(r.source, r.reviewer, labels))}</td>{cells}"
                    f"<td>{_nm(r.bertscore_status)}</td></tr>")
    return ("<p class='how'>Each review against every human review of the same paper (the reference row: each human"
            " review against the other human reviews of its paper), averaged per review, then over reviews.</p>"
            "<table>" + head + "".join(body) + "</table>" + audit_block(OVERLAP, ov, "the overlap rows"))


def section(data: ReportData, labels: dict) -> str:
    corr, papers, ov = data.get(CORR), data.get(PAPERS), data.get(OVERLAP)
    if corr is None and papers is None and ov is None:
        return HEADING + notes.missing("Score prediction", CORR, data.missing.get(CORR, "is not there"))
    parts = [HEADING, "<p class='how'>A predictor model reads each review with its rating numbers removed, plus the"
             " venue's rating rubric, and gives the score the review implies; a paper's prediction is the mean over"
             " its reviews. The table correlates it with the paper's human mean rating (Pearson r, Spearman ρ,"
             " Kendall τ-b). The reference row is the predictor reading the human reviews: how far text alone gets."
             " On the embedded 1.5B model these numbers check the pipeline, not the science.</p>"]
    if corr is None:
        parts.append(f"<p>Correlations: {_nm(data.missing.get(CORR, 'not built'))}.</p>")
    elif corr.empty:
        parts.append(f"<p>Correlations: {_nm('this study runs no score prediction')}.</p>")
    else:
        parts.append(_correlations(corr, labels))
    parts.append(_boxes(papers, data.missing.get(PAPERS, "not built"), labels))
    parts.append(_overlap(ov, data.missing.get(OVERLAP, "not built"), labels))
    return "".join(parts)
