"""The report's stress-suite section (#49): each reviewer system's stress card — per family of edits and per edit,
the paired shift variant − original with its bootstrap interval, the shift in units of the system's own noise
σ, gameability, detection of soundness edits, variants not built and the verdict against the study's
tolerances — with n beside every statistic and a link per row to its calls in the viewer. "not measured"
and why, never 0."""

import html
import json

import pandas as pd

from peerlake.report import notes
from peerlake.report.audit_links import audit_block, viewer_link
from peerlake.report.data import ReportData
from peerlake.report.embedded import embedded_models

HEADING = "<h2>Stress suite: does the score follow soundness?</h2>"
MART = "stress_cards"
NEEDS: dict[str, list[str]] = {
    MART: ["stress_card_id", "reviewer_config", "reviewer", "family", "edit", "n_variants", "n_not_built",
           "not_built_reasons", "n_papers", "shift_mean", "shift_ci_low", "shift_ci_high", "shift_null_reason",
           "shift_ci_null_reason", "sigma", "n_sigma_papers", "sigma_null_reason", "shift_noise_units",
           "discrimination", "discrimination_null_reason", "n_gamed_papers", "gameability", "gameability_ci_low",
           "gameability_ci_high", "gameability_null_reason", "n_reviews_judged", "n_reviews_mentioning",
           "detection_rate", "detection_null_reason", "invariance_max_noise_units", "sensitivity_min_noise_units",
           "noise_k", "n_bootstrap", "verdict", "verdict_reason"],
}
FAMILIES = ("soundness", "presentation", "prestige", "injection")
EXPECTED = {"soundness": "should fall", "presentation": "should stay within noise",
            "prestige": "should stay within noise", "injection": "should not rise"}


def _e(v) -> str:
    return html.escape(str(v))


def _nm(why) -> str:
    return f"<td><span class='nm'>not measured: {_e(why if isinstance(why, str) else 'no rows')}</span></td>"


def _shift(r: dict) -> str:
    if pd.isna(r["shift_mean"]):
        return _nm(r["shift_null_reason"])
    ci = (f" [{r['shift_ci_low']:+.2f}, {r['shift_ci_high']:+.2f}]" if pd.notna(r["shift_ci_low"])
          else f" <span class='nm'>({_e(r['shift_ci_null_reason'])})</span>")
    return f"<td>{r['shift_mean']:+.2f}{ci} <small>(n={int(r['n_papers'])})</small></td>"


def _units(r: dict) -> str:
    if pd.isna(r["shift_noise_units"]):
        return _nm(r["shift_null_reason"] if pd.isna(r["shift_mean"]) else r["sigma_null_reason"])
    return f"<td>{r['shift_noise_units']:+.2f}σ</td>"


def _gameability(r: dict) -> str:
    if r["family"] == "soundness":
        return "<td>—</td>"
    if pd.isna(r["gameability"]):
        return _nm(r["gameability_null_reason"])
    return (f"<td>{int(r['n_gamed_papers'])} of {int(r['n_papers'])} ({r['gameability']:.0%}) "
            f"[{r['gameability_ci_low']:.0%}, {r['gameability_ci_high']:.0%}]</td>")


def _detection(r: dict) -> str:
    if r["family"] != "soundness":
        return "<td>—</td>"
    if pd.isna(r["detection_rate"]):
        return _nm(r["detection_null_reason"])
    return f"<td>{int(r['n_reviews_mentioning'])} of {int(r['n_reviews_judged'])} reviews</td>"


def _not_built(r: dict) -> str:
    if not r["n_not_built"]:
        return "<td>0</td>"
    reasons = json.loads(r["not_built_reasons"]) if isinstance(r["not_built_reasons"], str) else {}
    why = ", ".join(f"{k} ({v})" for k, v in sorted(reasons.items()))
    return f"<td>{int(r['n_not_built'])}: {_e(why)}</td>"


def _verdict(r: dict) -> str:
    mark = {"pass": "pass", "fail": "<b>fail</b>"}.get(r["verdict"], "<span class='nm'>not measured</span>")
    return f"<td>{mark} <small>{_e(r['verdict_reason'])}</small></td>"


def card(df: pd.DataFrame) -> str:
    """One system's card: each family's row ('all') first, its edits below it."""
    order = {f: i for i, f in enumerate(FAMILIES)}
    df = df.assign(_f=df["family"].map(order), _all=df["edit"] != "all").sort_values(["_f", "_all", "edit"])
    rows = []
    for r in df.to_dict("records"):
        name = (f"<b>{_e(r['family'])}</b> <small>({EXPECTED.get(r['family'], '')})</small>" if r["edit"] == "all"
                else f"&nbsp;&nbsp;{_e(r['edit'])}")
        calls = viewer_link(MART, r["stress_card_id"])
        rows.append(f"<tr><td>{name}</td><td>{int(r['n_variants'])}</td>{_shift(r)}{_units(r)}{_gameability(r)}"
                    f"{_detection(r)}{_not_built(r)}{_verdict(r)}<td>{calls}</td></tr>")
    return ("<table><tr><th>family / edit</th><th>variants</th><th>shift variant − original [95% CI]</th>"
            "<th>in noise units</th><th>gameability [95% Wilson]</th><th>mentions the problem</th>"
            "<th>not built</th><th>verdict</th><th></th></tr>" + "".join(rows) + "</table>")


def _summary(df: pd.DataFrame) -> str:
    """σ with its n, and discrimination from the soundness family row."""
    first = df.iloc[0]
    sigma = (f"σ = {first['sigma']:.2f} <small>(n={int(first['n_sigma_papers'])} original papers)</small>"
             if pd.notna(first["sigma"]) and first["sigma"] > 0
             else f"σ <span class='nm'>not measured: {_e(first['sigma_null_reason'] or 'σ = 0')}</span>")
    sound = df[(df["family"] == "soundness") & (df["edit"] == "all")]
    if sound.empty:
        disc = "<span class='nm'>not measured: no soundness edit in the study</span>"
    elif pd.isna(sound.iloc[0]["discrimination"]):
        disc = f"<span class='nm'>not measured: {_e(sound.iloc[0]['discrimination_null_reason'])}</span>"
    else:
        disc = f"{sound.iloc[0]['discrimination']:.2f} <small>(n={int(sound.iloc[0]['n_papers'])})</small>"
    tol = (f"sensitivity ≥ {first['sensitivity_min_noise_units']:.2f}σ, invariance ≤ "
           f"{first['invariance_max_noise_units']:.2f}σ, k = {first['noise_k']:.2f}, "
           f"{int(first['n_bootstrap'])} bootstrap resamples")
    return f"<p>Own noise {sigma}; discrimination {disc}. Tolerances: {tol}.</p>"


def section(data: ReportData, labels: dict) -> str:
    df = data.get(MART)
    if df is None:
        return HEADING + notes.missing("Stress suite", MART, data.missing.get(MART, "is not there"))
    if df.empty:
        return HEADING + notes.not_measured("Stress suite", "the study runs no [stress] experiment (nor "
                                            "[contradictions] or [hidden_text], whose variants join the suite)")
    parts = [HEADING, "<p class='how'>Each edit is a paper variant; shift = the system's mean score on the variant − "
             "on the original, averaged over papers (a paper's variants of one row averaged first), with a "
             "paper-bootstrap 95% interval. In noise units: shift / σ, σ the system's own within-paper SD on the "
             "originals. Verdicts, against the study's [stress] tolerances: soundness must fall by at least the "
             "sensitivity tolerance; presentation and prestige may move at most the invariance tolerance either "
             "way; an injection may raise the score at most that much. Gameability: the papers a non-soundness "
             "edit raised by more than k·σ·√(1/n_variant + 1/n_original). Discrimination: |soundness shift| / the "
             "largest presentation or prestige |shift|, floored at their noise standard error.</p>"]
    if embedded_models(data):
        parts.append("<p class='note'>On the embedded model these cards show that the suite runs, not how a "
                     "reviewer behaves (see the note at the top of the page).</p>")
    measured = df[df["n_papers"] > 0]
    if not measured.empty:
        parts.append(notes.small_sample(measured["n_papers"].min()))
    keys = [c for c in ("study_id", "reviewer_config") if c in df.columns]
    several = "study_id" in df.columns and df["study_id"].nunique() > 1
    for _, g in df.groupby(keys, sort=True):
        config = g["reviewer_config"].iloc[0]
        reviewer = g["reviewer"].dropna().iloc[0] if g["reviewer"].notna().any() else "?"
        name = labels.get(config) or f"{reviewer} · {config[:8]}"
        study = f" <small>(study {_e(g['study_id'].iloc[0])})</small>" if several else ""
        parts.append(f"<h3>{_e(name)}{study}</h3>" + _summary(g) + card(g))
    parts.append(audit_block(MART, df, "the stress cards"))
    return "\n".join(parts)
