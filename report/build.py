"""Assemble the page: one section per question, each skipped with a note when its mart is absent."""

import html
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from peerlake.report import (
    consistency,
    contradictions,
    figures,
    focus,
    hidden_text,
    judges,
    notes,
    quality,
    revision,
    score_prediction,
    stress,
    systems,
    withdrawals,
)
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData, config_labels, load
from peerlake.report.embedded import embedded_note
from peerlake.warehouse.chain import Link

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;max-width:1060px;margin:2em auto;
padding:0 1em;color:#222}
h1{font-size:1.6em;margin-bottom:.1em} h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.sub{color:#666;margin-top:0} .note{background:#fff8e1;border-left:3px solid #f0b400;padding:.4em .8em;color:#5a4a00}
table{border-collapse:collapse;margin:.6em 0;font-size:12.5px}
th,td{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:right}
th{background:#f6f6f6} td:first-child,th:first-child{text-align:left} img{max-width:100%} code{font-size:12px}
p.how{color:#555;font-size:13px;max-width:60em}
.nm{color:#8a6d00;font-style:italic}
.warn{background:#fdecea;border-left:3px solid #d93025;padding:.4em .8em;color:#5f1410}
details.audit{font-size:12px;color:#444;margin:.3em 0 1em} details.audit summary{cursor:pointer;color:#36c}
"""


def _fmt(v, nd: int = 2) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA:
        return "—"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def _table(df: pd.DataFrame, cols: dict[str, str], nd: dict[str, int] | None = None) -> str:
    """cols: column → header; nd: decimals per column (default 2)."""
    nd = nd or {}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in cols.values())
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c), nd.get(c, 2)))}</td>" for c in cols) + "</tr>"
                   for r in df.to_dict("records"))
    return f"<table><tr>{head}</tr>{body}</table>"


def _ci(df: pd.DataFrame, est: str, lo: str, hi: str, out: str, nd: int = 2) -> pd.DataFrame:
    df = df.copy()
    df[out] = [f"{_fmt(e, nd)} [{_fmt(a, nd)}, {_fmt(b, nd)}]" if pd.notna(e) else "—"
               for e, a, b in zip(df[est], df[lo], df[hi], strict=True)]
    return df


def _note(data: ReportData, table: str, what: str, needs: str) -> str:
    """Why a section shows nothing: its mart is missing from the warehouse, or the study lacks what it needs."""
    if table in data.missing:
        return notes.missing(what, table, data.missing[table])
    return notes.not_measured(what, needs)


def _papers_range(df: pd.DataFrame) -> str:
    lo, hi = int(df["n_papers"].min()), int(df["n_papers"].max())
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _fewest_papers(df: pd.DataFrame) -> str:
    """The small-sample warning for a mart's rows, by their smallest n_papers ('' without the column)."""
    return notes.small_sample(df["n_papers"].min()) if "n_papers" in df and df["n_papers"].notna().any() else ""


def _img(uri: str, alt: str) -> str:
    return f'<img src="{uri}" alt="{html.escape(alt)}">'


def _overview(data: ReportData, labels: dict) -> str:
    scores = data.get("fct_ai_review_scores")
    if scores is None or scores.empty:
        return "<h2>Reviewer configurations</h2>" + _note(
            data, "fct_ai_review_scores", "Reviewer configurations",
            "no AI reviewer has reviewed a paper of it yet (a study without [[reviewers]] judges imported "
            "reviews only)")
    g = scores.groupby("reviewer_config")
    df = pd.DataFrame({"reviewer_config": list(g.groups)})
    df["label"] = df["reviewer_config"].map(labels)
    df["papers"] = g["paper_id"].nunique().values
    df["reviews"] = g.size().values
    df["parsed"] = g["is_parsed"].mean().values * 100
    df["mean_score"] = g["overall_score"].mean().values
    rep = data.get("reliability_repeatability")
    if rep is not None:
        df = df.merge(rep[["reviewer_config", "within_paper_sd"]], on="reviewer_config", how="left")
    cols = {"label": "configuration", "papers": "papers", "reviews": "reviews", "parsed": "% parsed",
            "mean_score": "mean score"}
    if "within_paper_sd" in df:
        cols["within_paper_sd"] = "within-paper SD"
    return ("<h2>Reviewer configurations</h2><p class='how'>A configuration is a prompt template + model + "
            "parameters; scores are the parsed answers of independent reviews.</p>"
            + _table(df, cols, {"papers": 0, "reviews": 0, "parsed": 1})
            + audit_block("reliability_repeatability", data.get("reliability_repeatability"), "the within-paper SDs"))


def _histograms(data: ReportData, labels: dict) -> str:
    scores = data.get("fct_ai_review_scores")
    if scores is None or not scores["is_parsed"].any():
        return "<h2>Score histograms</h2>" + _note(
            data, "fct_ai_review_scores", "Score histograms", "no AI review of it has a parsed score")
    return ("<h2>Score histograms</h2>" + _img(figures.score_histograms(scores, labels), "score histograms")
            + audit_block("fct_ai_review_scores", scores, "each review score"))


def _within(data: ReportData, labels: dict) -> str:
    rep = data.get("reliability_repeatability")
    if rep is None or rep["within_paper_sd"].notna().sum() == 0:
        return "<h2>Within-paper spread</h2>" + _note(
            data, "reliability_repeatability", "Within-paper spread",
            "it needs two or more scored reviews of one paper by one configuration ([[reviewers]] samples ≥ 2)")
    extra = {c: h for c, h in [("share_papers_identical", "all identical"), ("share_papers_range_le_1", "range ≤ 1"),
                               ("pairwise_agreement_mean", "pairwise agreement")] if c in rep}
    df = rep.assign(label=rep["reviewer_config"].map(labels))
    return ("<h2>Within-paper spread</h2><p class='how'>The same paper, model and prompt scored again: SD = "
            "√(mean over papers of the unbiased variance of its scores).</p>"
            + _img(figures.within_sd_bars(rep, labels), "within-paper SD")
            + _table(df, {"label": "configuration", "n_papers": "papers", "within_paper_sd": "within-paper SD",
                          **extra}, {"n_papers": 0})
            + audit_block("reliability_repeatability", rep))


def _rank(data: ReportData, labels: dict) -> str:
    rank = data.get("reliability_rank_reproducibility")
    if rank is None or rank.empty:
        return "<h2>Do independent reviews reproduce the ranking?</h2>" + _note(
            data, "reliability_rank_reproducibility", "Rank reproducibility",
            "it needs two disjoint blocks of reviews per paper (samples ≥ 2) and two papers of one venue-year")
    return ("<h2>Do independent reviews reproduce the ranking?</h2><p class='how'>Two disjoint blocks of k reviews"
            " per paper; for every pair of papers in a venue-year: the same strict order in both blocks, a tie in"
            " at least one, or the reverse order"
            + (f" (papers per configuration: {_papers_range(rank)})" if "n_papers" in rank else "") + ".</p>"
            + _fewest_papers(rank) + _img(figures.rank_curves(rank, labels), "same/tie/reverse")
            + audit_block("reliability_rank_reproducibility", rank))


def _budget(data: ReportData, labels: dict) -> str:
    b = data.get("reliability_budgets")
    if b is None or b.empty:
        return "<h2>How many reviews are enough?</h2>" + _note(
            data, "reliability_budgets", "Budget curve",
            "it needs repeated reviews of each paper ([[reviewers]] samples ≥ 2)")
    tbl_cols = {c: h for c, h in [("label", "configuration"), ("tolerance", "ε"), ("variance_hat", "V̂"),
                                  ("variance_upper", "U"), ("planning_budget", "planning k"),
                                  ("certified_budget", "certified k"), ("range_only_budget", "range-only k")]
                if c == "label" or c in b}
    return ("<h2>How many reviews are enough?</h2><p class='how'>Chebyshev: the share of papers whose mean of k"
            " new scores lands within ε = 0.5 of the paper's true mean is at least 1 − V/(kε²). Dashed: V = V̂"
            " (the pilot's estimate); solid: V = U, an upper confidence bound that uses only the score range.</p>"
            + _img(figures.budget_curves(b, labels), "budget curve")
            + _table(b.assign(label=b["reviewer_config"].map(labels)), tbl_cols,
                     {"tolerance": 2, "planning_budget": 0, "certified_budget": 0, "range_only_budget": 0})
            + audit_block("reliability_budgets", b))


def _validity(data: ReportData, labels: dict) -> str:
    v = data.get("reliability_validity")
    if v is None or v.empty:
        return "<h2>Validity against human scores</h2>" + _note(
            data, "reliability_validity", "Validity", "it needs human scores of the reviewed papers "
            "(papers ingested with their OpenReview reviews)")
    cols = {c: h for c, h in [("label", "configuration"), ("scope", "scope"), ("n_papers", "papers"),
                              ("pearson", "Pearson"), ("spearman", "Spearman"), ("mae", "MAE"), ("rmse", "RMSE"),
                              ("acceptance_auc", "AUC"), ("acceptance_auc_excluding_withdrawn", "AUC w/o withdrawn")]
            if c == "label" or c in v}
    return ("<h2>Validity against human scores</h2>" + _fewest_papers(v)
            + _table(v.assign(label=v["reviewer_config"].map(labels)), cols, {"n_papers": 0})
            + _validity_baselines(v, labels)
            + audit_block("reliability_validity", v))


# The system's figure, then what a trivial rule gets on the same papers (metrics.stats.baselines).
BASELINE_COLUMNS = [("label", "configuration"), ("scope", "scope"), ("mae", "MAE"),
                    ("baseline_constant_mae", "MAE of the constant"), ("pearson", "Pearson"),
                    ("baseline_length_pearson", "Pearson of length"), ("acceptance_auc", "AUC"),
                    ("baseline_constant_auc", "AUC of the constant"), ("baseline_length_auc", "AUC of length"),
                    ("baseline_human_mean_auc", "AUC of the human mean"), ("acceptance_accuracy", "accuracy"),
                    ("baseline_human_threshold_accuracy", "accuracy of human mean > t"),
                    ("baseline_human_threshold", "t")]


def _validity_baselines(v: pd.DataFrame, labels: dict) -> str:
    if "baseline_constant_mae" not in v:
        return ""
    cols = {c: h for c, h in BASELINE_COLUMNS if c == "label" or c in v}
    return ("<h3>Against trivial baselines</h3><p>A predictor is only interesting if it beats a trivial rule on "
            "the same papers: a constant (the papers' mean human score; AUC ½), the review's length alone, and the "
            "human mean score with the best threshold t (accuracies: accept when the score &gt; t, t chosen on "
            "these papers for the system and the humans alike).</p>"
            + _table(v.assign(label=v["reviewer_config"].map(labels)), cols))


def _granularity(data: ReportData, labels: dict) -> str:
    g = data.get("reliability_granularity")
    if g is None or g.empty:
        return "<h2>Does finer granularity help?</h2>" + _note(
            data, "reliability_granularity", "Granularity", "it needs an integer and a forced-decimal configuration "
            "of one model on the same papers (as the reliability study seed-001 declares them)")
    g = _ci(g, "mean_shift", "mean_shift_ci_low", "mean_shift_ci_high", "shift")
    g = _ci(g, "mae_change", "mae_change_ci_low", "mae_change_ci_high", "dmae")
    g["label"] = g["integer_config"].map(lambda c: labels.get(c, c[:8]))
    return ("<h2>Does finer granularity help?</h2><p class='how'>The same model with a forced-decimal score"
            " (a number in [1, 10] with a non-zero fractional part; a whole number is an invalid answer). Shift and"
            " MAE change are decimal − integer with paired paper-bootstrap 95% intervals.</p>" + _fewest_papers(g)
            + _table(g, {"label": "integer configuration", "n_papers": "papers", "n_decimal_invalid": "invalid decimal",
                         "shift": "mean shift [95% CI]", "within_paper_sd_integer": "SD integer",
                         "within_paper_sd_decimal": "SD decimal", "mae_integer": "MAE integer",
                         "mae_decimal": "MAE decimal", "dmae": "MAE change [95% CI]"},
                     {"n_papers": 0, "n_decimal_invalid": 0})
            + audit_block("reliability_granularity", g))


def _distribution(data: ReportData, labels: dict) -> str:
    d = data.get("reliability_distribution_estimation")
    if d is None or d.empty:
        return "<h2>A cheaper probe for the score distribution</h2>" + _note(
            data, "reliability_distribution_estimation", "Distribution estimation",
            "it needs a score probe with logprobs beside full reviews (as the reliability study seed-001 declares)")
    d = _ci(d, "risk", "risk_ci_low", "risk_ci_high", "risk_ci", 3)
    return ("<h2>A cheaper probe for the score distribution</h2><p class='how'>Risk = E‖q − p‖², the squared"
            " distance between an estimated and the true score distribution of a paper, measured by the debiased"
            " R̂ on held-out papers (30 random half splits). quick: one score-only call's top logprobs, sharpened"
            " and shifted; standard: mixed with two full reviews; direct_n: n full reviews.</p>"
            + _img(figures.risk_bars(d), "distribution risks")
            + _table(d, {"method": "method", "n_papers": "papers", "risk_ci": "risk [95% CI]",
                         "acceptance_auc": "acceptance AUC", "review_config": "review config"},
                     {"n_papers": 0, "acceptance_auc": 3})
            + audit_block("reliability_distribution_estimation", d))


SECTIONS = [_overview, _histograms, _within, _rank, _budget, _validity, _granularity, _distribution,
            systems.section, quality.section, judges.section, contradictions.section, hidden_text.section,
            stress.section, withdrawals.section, score_prediction.section, focus.section, consistency.section,
            revision.section]


def render_report(duckdb_path: Path, study: str | None = None, data: ReportData | None = None,
                  chain_head: Link | None = None) -> str:
    """The page as one HTML string (plots inlined as PNG data URIs), for one study or for all rows.
    Pass `data` (from `load`) to render several studies' pages from one read of the marts, and the event
    log's `chain_head` to show it in the footer."""
    data = load(duckdb_path, study) if data is None else data.only(study)
    labels = config_labels(data.get("fct_ai_review_scores"))
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = "".join(section(data, labels) for section in SECTIONS)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>peerlake report</title><style>{CSS}</style>"
            f"</head><body><h1>Can we believe an AI score?</h1>"
            f"{f'<p>Study <b>{html.escape(study)}</b></p>' if study else ''}<p class='sub'>peerlake report · {when} · "
            f"{html.escape(str(duckdb_path))}</p>{embedded_note(data)}{body}{_footer(chain_head)}</body></html>")


def _footer(head: Link | None) -> str:
    if head is None:
        return ""
    return (f"<footer class='sub'>Event log chain head seq {head.seq}: <code>{html.escape(head.sha256)}</code> "
            "(<code>peerlake verify --head &lt;hash&gt;</code> shows the log still holds everything up to "
            "it)</footer>")


def content_hash(page: str) -> str:
    """SHA-256 of the page without its render-time line: equal pages for equal marts."""
    import hashlib
    import re

    page = re.sub(r"<footer class='sub'>.*?</footer>", "", page, count=1)  # the log's head, not the marts
    return hashlib.sha256(re.sub(r"<p class='sub'>.*?</p>", "", page, count=1).encode()).hexdigest()[:16]


def write_report(duckdb_path: Path, out: Path, study: str | None = None,
                 data: ReportData | None = None, chain_head: Link | None = None) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(render_report(duckdb_path, study, data, chain_head), encoding="utf-8")
    tmp.replace(out)  # a reader never sees half a page
    return out
