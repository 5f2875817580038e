"""The report's judge-panel section (#45): does the verdict survive the judge? For a study that names two or
more configurations of one judge ([[judging.panel]]), per judge and headline metric: the systems' means and
ranks under each configuration side by side, Kendall's τ-b between the rankings with its paper-bootstrap
interval, every system pair whose difference changes sign between configurations (flagged, first), and how
well the configurations agree on the same reviews (α, r). A study with one configuration per judge gets no
section at all: its page is what it was before panels existed."""

import html

import pandas as pd

from peerlake.report import notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData
from peerlake.report.quality import PROFILE

HEADING = "<h2>Does the verdict survive the judge?</h2>"
CONFIGS = "dim_judge_configs"
RANKINGS = "judge_rankings"
TAU = "judge_ranking_agreement"
FLIPS = "judge_ranking_flips"
AGREEMENT = "judge_panel_agreement"
DIFFERENCES = "judge_pair_differences"

NEEDS = {
    CONFIGS: ["judge", "judge_config", "judge_label", "judge_provider", "judge_model", "is_primary", "is_headline"],
    RANKINGS: ["judge", "judge_label", "metric", "system", "source", "n_papers", "n_reviews", "mean", "rank",
               "n_systems"],
    TAU: ["judge", "metric", "label_x", "label_y", "n_systems", "n_papers", "kendall_tau_b", "ci_low", "ci_high",
          "n_resamples", "seed", "null_reason"],
    FLIPS: ["judge", "metric", "system_a", "system_b", "label_x", "label_y", "n_papers_x", "n_papers_y", "diff_x",
            "diff_y", "is_flipped"],
    AGREEMENT: ["judge", "metric", "label_x", "label_y", "n_reviews", "alpha", "pearson", "pearson_ci_low",
                "pearson_ci_high", "spearman", "mean_diff", "null_reason"],
    DIFFERENCES: ["judge", "metric", "system", "label_x", "label_y", "n_pairs", "mean_diff", "ci_low", "ci_high",
                  "wilcoxon_p", "skip_reason"],
}

# Why a figure is null, in words (metrics.quality.panel's null_reason / skip_reason values).
REASONS = {
    "fewer_than_2_systems": "fewer than two systems scored under both configurations: nothing to rank",
    "fewer_than_2_papers": "fewer than two papers on which both configurations scored every system",
    "constant_ranking": "a configuration ranks every system equal: τ is undefined",
    "fewer_than_half_resamples_defined": "τ is undefined on more than half of the bootstrap resamples: no interval",
    "fewer_than_3_reviews": "fewer than three reviews judged by both configurations",
    "constant_x": "the first configuration gives every review the same value",
    "constant_y": "the second configuration gives every review the same value",
    "same_configuration": "both names are the same judge configuration",
    "fewer_than_10_pairs": "fewer than 10 papers: means only",
}
PARTS = [(RANKINGS, "Rankings under each configuration"), (TAU, "Kendall's τ between the rankings"),
         (FLIPS, "Flipped system pairs"), (AGREEMENT, "Agreement on the same reviews"),
         (DIFFERENCES, "Paired differences per system")]


def _null(v) -> bool:
    return v is None or (pd.api.types.is_scalar(v) and bool(pd.isna(v)))


def _true(v) -> bool:
    return not _null(v) and bool(v)


def _e(v) -> str:
    return html.escape(str(v))


def _num(v, nd: int = 3) -> str:
    return "—" if _null(v) else f"{v:.{nd}f}"


def _int(v) -> str:
    return "—" if _null(v) else str(int(v))


def _ci(est, lo, hi, nd: int = 3) -> str:
    if _null(est):
        return "—"
    if _null(lo):
        return _num(est, nd)
    return f"{_num(est, nd)} [{_num(lo, nd)}, {_num(hi, nd)}]"


def _p(v) -> str:
    return "—" if _null(v) else ("< 0.001" if v < 0.001 else f"{v:.3f}")


def _why(reason) -> str:
    if _null(reason) or reason == "":
        return ""
    return REASONS.get(str(reason), str(reason).replace("_", " "))


def _table(head: list[str], rows: list[list[str]], raw: set[int] = frozenset()) -> str:
    """Cells escaped, except the columns in `raw` (already-built HTML from escaped parts)."""
    body = "".join("<tr>" + "".join(f"<td>{c if i in raw else _e(c)}</td>" for i, c in enumerate(r)) + "</tr>"
                   for r in rows)
    return "<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>" + body + "</table>"


def _rows(data: ReportData, table: str, judge: str, metric: str | None = None) -> pd.DataFrame | None:
    df = data.get(table)
    if df is None:
        return None
    keep = df["judge"] == judge
    if metric is not None:
        keep &= df["metric"] == metric
    return df[keep]


def panels(data: ReportData) -> dict[str, list[str]]:
    """Judge → its configurations' labels, for the judges with two or more in the study (the rankings mart's
    labels; the configurations mart's when the rankings are absent). Empty: a one-configuration study."""
    source = data.get(RANKINGS)
    if source is None:
        source = data.get(CONFIGS)
    if source is None or source.empty:
        return {}
    out = {}
    for judge, group in source.groupby("judge", sort=True):
        found = sorted({str(x) for x in group["judge_label"].dropna()})
        if len(found) >= 2:
            out[str(judge)] = _ordered(data, str(judge), found)
    return out


def _ordered(data: ReportData, judge: str, found: list[str]) -> list[str]:
    """The primary configuration first, then by name."""
    configs = _rows(data, CONFIGS, judge)
    primary = set() if configs is None else {str(x) for x in configs.loc[configs["is_primary"].map(_true),
                                                                         "judge_label"]}
    return sorted(found, key=lambda label: (label not in primary, label))


def _who(system, labels: dict[str, str]) -> str:
    return labels.get(system, str(system))


def _configurations(data: ReportData, judge: str, names: list[str]) -> str:
    configs = _rows(data, CONFIGS, judge)
    parts = []
    for label in names:
        text = f"<b>{_e(label)}</b>"
        hit = None if configs is None else configs[configs["judge_label"] == label]
        if hit is not None and len(hit):
            r = hit.iloc[0]
            model = "/".join(str(v) for v in (r["judge_provider"], r["judge_model"]) if not _null(v))
            extra = [x for x in (model, "primary" if _true(r["is_primary"]) else "",
                                 "the headline tables read it" if _true(r["is_headline"]) else "") if x]
            text += f" ({_e(', '.join(extra))})" if extra else ""
        parts.append(text)
    return f"<p>Configurations: {'; '.join(parts)}.</p>"


def _rankings(rows: pd.DataFrame, names: list[str], labels: dict[str, str]) -> str:
    """Systems × configurations: mean over papers (n papers) and rank of n systems."""
    if rows is None or rows.empty:
        return ""
    first = next((n for n in names if (rows["judge_label"] == n).any()), names[0])
    order = rows[rows["judge_label"] == first].set_index("system")["rank"].to_dict()
    systems = sorted(rows["system"].unique(), key=lambda s: (order.get(s, 10**9), _who(s, labels)))
    head = ["system"]
    for n in names:
        head += [f"{n}: mean (n papers)", f"{n}: rank"]
    body = []
    for s in systems:
        cells = [_who(s, labels)]
        for n in names:
            hit = rows[(rows["system"] == s) & (rows["judge_label"] == n)]
            if hit.empty:
                cells += ["—", "—"]
                continue
            r = hit.iloc[0]
            cells += [f"{_num(r['mean'])} (n={_int(r['n_papers'])})", f"{_int(r['rank'])} of {_int(r['n_systems'])}"]
        body.append(cells)
    return _table(head, body)


def _tau(rows: pd.DataFrame | None) -> str:
    if rows is None or rows.empty:
        return ""
    body = [[f"{r['label_x']} vs {r['label_y']}", _ci(r["kendall_tau_b"], r["ci_low"], r["ci_high"]),
             _int(r["n_systems"]), _int(r["n_papers"]), _int(r["n_resamples"]), _why(r["null_reason"])]
            for r in rows.sort_values(["label_x", "label_y"]).to_dict("records")]
    seeds = sorted({int(s) for s in rows["seed"].dropna()})
    how = (f" (seed {', '.join(map(str, seeds))})" if seeds else "")
    return ("<p class='how'>Kendall's τ-b between the two configurations' rankings of the systems, over the papers "
            "on which both scored every system; percentile 95% interval from resampling those papers"
            f"{_e(how)}.</p>"
            + _table(["configurations", "τ-b [95% CI]", "systems", "papers", "resamples", "note"], body))


def _flips(rows: pd.DataFrame | None, labels: dict[str, str]) -> str:
    if rows is None or rows.empty:
        return ""
    rows = rows.assign(_f=rows["is_flipped"].map(_true))
    rows = rows.sort_values(["_f", "label_x", "label_y", "system_a", "system_b"],
                            ascending=[False, True, True, True, True])
    body = []
    for r in rows.to_dict("records"):
        if r["_f"]:
            flag = "<b>⚠ flipped</b>"
        elif _null(r["is_flipped"]):
            flag = _e("— (a side has no shared paper)")
        else:
            flag = "same sign"
        body.append([flag, f"{_who(r['system_a'], labels)} − {_who(r['system_b'], labels)}",
                     f"{r['label_x']} vs {r['label_y']}",
                     f"{_num(r['diff_x'])} (n={_int(r['n_papers_x'])} papers)",
                     f"{_num(r['diff_y'])} (n={_int(r['n_papers_y'])} papers)"])
    n_flipped = int(rows["_f"].sum())
    summary = (f"<p><b>{n_flipped} of {len(rows)} system pair(s) flip</b> between configurations"
               f"{': the verdict on them depends on the judge' if n_flipped else ''}.</p>")
    return (summary + "<p class='how'>Difference of the two systems' means over the papers both have, under each "
            "configuration; flipped: the signs differ (both beyond float noise).</p>"
            + _table(["", "systems (a − b)", "configurations", "difference under the first",
                      "difference under the second"], body, raw={0}))


def _agreement(rows: pd.DataFrame | None) -> str:
    if rows is None or rows.empty:
        return ""
    body = [[f"{r['label_x']} vs {r['label_y']}", _int(r["n_reviews"]), _num(r["alpha"]),
             _ci(r["pearson"], r["pearson_ci_low"], r["pearson_ci_high"]), _num(r["spearman"]),
             _num(r["mean_diff"]), _why(r["null_reason"])]
            for r in rows.sort_values(["label_x", "label_y"]).to_dict("records")]
    return ("<p class='how'>The same reviews scored by both configurations: Krippendorff's α (interval), Pearson r "
            "with its Fisher 95% interval, Spearman ρ, and the mean difference second − first.</p>"
            + _table(["configurations", "reviews (n)", "α", "r [95% CI]", "ρ", "mean difference", "note"], body))


def _differences(rows: pd.DataFrame | None, labels: dict[str, str]) -> str:
    if rows is None or rows.empty:
        return ""
    body = [[_who(r["system"], labels), f"{r['label_x']} vs {r['label_y']}", _int(r["n_pairs"]),
             _ci(r["mean_diff"], r["ci_low"], r["ci_high"]), _p(r["wilcoxon_p"]), _why(r["skip_reason"])]
            for r in rows.sort_values(["system", "label_x", "label_y"]).to_dict("records")]
    return ("<p class='how'>Per system, its per-paper means under both configurations paired by paper: second − "
            "first with a paired paper-bootstrap 95% interval and Wilcoxon's signed-rank p.</p>"
            + _table(["system", "configurations", "papers (n)", "difference [95% CI]", "Wilcoxon p", "note"], body))


def _metrics(data: ReportData, judge: str) -> list[tuple[str, str]]:
    present = set()
    for table in (RANKINGS, TAU, FLIPS, AGREEMENT, DIFFERENCES):
        rows = _rows(data, table, judge)
        if rows is not None:
            present |= set(rows["metric"].dropna().astype(str))
    return [(m, label) for m, label in PROFILE if m in present]


def _fewest(*frames: pd.DataFrame | None) -> float | None:
    counts = [f["n_papers"].min() for f in frames if f is not None and not f.empty and f["n_papers"].notna().any()]
    return min(counts) if counts else None


def _judge(data: ReportData, judge: str, names: list[str], labels: dict[str, str]) -> str:
    out = f"<h3>Judge {_e(judge)}</h3>" + _configurations(data, judge, names)
    metrics = _metrics(data, judge)
    if not metrics:
        return out + "<p>No headline metric of this judge has a figure under two configurations.</p>"
    for metric, title in metrics:
        rankings = _rows(data, RANKINGS, judge, metric)
        tau = _rows(data, TAU, judge, metric)
        out += (f"<h4>{_e(title)}</h4>" + notes.small_sample(_fewest(rankings, tau))
                + _rankings(rankings, names, labels) + _tau(tau) + _flips(_rows(data, FLIPS, judge, metric), labels)
                + _agreement(_rows(data, AGREEMENT, judge, metric))
                + _differences(_rows(data, DIFFERENCES, judge, metric), labels))
    return out


def section(data: ReportData, labels: dict[str, str]) -> str:
    """The panel's judges side by side; '' when no judge of the study has two configurations."""
    found = panels(data)
    if not found:
        return ""
    missing = "".join(notes.missing(what, table, data.missing[table]) for table, what in PARTS
                      if table in data.missing)
    body = "".join(_judge(data, judge, names, labels) for judge, names in found.items())
    audits = "".join(audit_block(table, frame[frame["judge"].isin(list(found))], what)
                     for table, what in [(RANKINGS, "the rankings"), (TAU, "the τ values"),
                                         (FLIPS, "the system pairs"), (AGREEMENT, "the agreements"),
                                         (DIFFERENCES, "the paired differences")]
                     if (frame := data.get(table)) is not None)
    return (HEADING + "<p class='how'>The study names two or more configurations of a judge (a judge panel); each"
            " judged the same reviews. If the systems' order changes with the configuration, a verdict of the"
            " headline tables (which read one configuration) is the judge's as much as the systems'. Systems are"
            " ranked by the mean over papers of their per-paper mean (1 = highest).</p>"
            + missing + body + audits)
