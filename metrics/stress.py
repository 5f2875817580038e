"""The stress cards (#49): per study, reviewer configuration, family and edit (and edit 'all' per family), how
far controlled edits move the score, against the reviewer's own within-paper noise σ. The body of the
stress_cards mart; docs/experiments/stress.md states every formula as written here.

Unit of analysis: the base paper. A row's papers are the base papers with a parsed score from the
configuration on the original and on at least one of the row's variants; a paper's shift d_i is the mean
of its variants' scores minus the original's score (each score the mean of the configuration's samples),
and its pure-noise variance factor f_i = (Σ_j 1/n_vj)/m_i² + 1/n_o (m_i variants, n_vj and n_o samples):
Var(d_i) = σ²·f_i if the scores were σ-noise around fixed values.
"""

import json

import numpy as np
import pandas as pd

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.keys import join_id, typed_frame
from peerlake.metrics.stats.wilson import wilson_interval

ALL = "all"
SOUNDNESS = "soundness"
INVARIANT = ("presentation", "prestige")  # the score should not move: two-sided tolerance
INJECTION = "injection"  # the score should not rise: one-sided (a reviewer may mark a manipulation down)
NOT_ONE_PAPER = "one paper: a bootstrap over papers needs 2"

COLUMNS = {
    "stress_card_id": "string", "study_id": "string", "reviewer_config": "string", "reviewer": "string",
    "family": "string", "edit": "string", "variant_ids": "string", "n_variants": "int64", "n_not_built": "int64",
    "not_built_reasons": "string", "n_papers": "int64", "shift_mean": "float64", "shift_ci_low": "float64",
    "shift_ci_high": "float64", "shift_null_reason": "string", "shift_ci_null_reason": "string",
    "sigma": "float64", "n_sigma_papers": "int64",
    "sigma_null_reason": "string", "shift_noise_units": "float64", "shift_ci_low_noise_units": "float64",
    "shift_ci_high_noise_units": "float64", "noise_se": "float64", "sensitivity_noise_units": "float64",
    "invariance_noise_units": "float64", "discrimination": "float64", "discrimination_null_reason": "string",
    "n_gamed_papers": "Int64", "gameability": "float64", "gameability_ci_low": "float64",
    "gameability_ci_high": "float64", "gameability_null_reason": "string", "detection_judge_config": "string",
    "n_reviews_judged": "Int64", "n_reviews_mentioning": "Int64", "detection_rate": "float64",
    "detection_null_reason": "string", "invariance_max_noise_units": "float64",
    "sensitivity_min_noise_units": "float64", "noise_k": "float64", "n_bootstrap": "int64",
    "bootstrap_seed": "int64", "verdict": "string", "verdict_reason": "string",
}


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def paper_shifts(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per base paper with scores on both sides: shift d_i and noise factor f_i, sorted by paper
    (the order the bootstrap resamples)."""
    both = pairs[pairs["shift"].notna()]
    rows = []
    for paper, g in both.groupby("base_paper_id", sort=True):
        m = len(g)
        f = float((1.0 / g["n_variant_scored"]).sum()) / m**2 + 1.0 / float(g["n_original_scored"].iloc[0])
        rows.append({"base_paper_id": paper, "shift": float(g["shift"].mean()), "factor": f})
    return pd.DataFrame(rows, columns=["base_paper_id", "shift", "factor"])


def _sigma_reason(sigma: float) -> str | None:
    if _nan(sigma):
        return "no original paper with ≥ 2 parsed scores from this configuration (σ needs repeated samples)"
    if sigma == 0:
        return "σ = 0: every original paper got the same score in each sample (noise units are undefined)"
    return None


def card_row(pairs: pd.DataFrame, *, sigma: float, n_sigma_papers: int, tol: dict, seed: int) -> dict:
    """The statistics of one row from its pairs (one family, one edit or all), before discrimination."""
    family = pairs["family"].iloc[0]
    built = pairs[pairs["is_built"]]
    not_built = pairs[~pairs["is_built"]]
    reasons = not_built["not_built_reason"].value_counts().sort_index()
    papers = paper_shifts(built)
    n = len(papers)
    row = {"variant_ids": json.dumps(sorted(built["variant_id"].unique().tolist())),
           "n_variants": int(built["variant_id"].nunique()), "n_not_built": int(not_built["variant_id"].nunique()),
           "not_built_reasons": json.dumps({str(k): int(v) for k, v in reasons.items()}) if len(reasons) else None,
           "n_papers": n, "sigma": sigma, "n_sigma_papers": n_sigma_papers, "sigma_null_reason": _sigma_reason(sigma),
           **{k: tol[k] for k in ("invariance_max_noise_units", "sensitivity_min_noise_units", "noise_k",
                                  "n_bootstrap")}, "bootstrap_seed": seed}
    shift = float(papers["shift"].mean()) if n else float("nan")
    lo = hi = float("nan")
    if n >= 2:
        lo, hi = bootstrap_mean_ci(papers["shift"].to_numpy(), n_resamples=int(tol["n_bootstrap"]), seed=seed)
    if row["n_variants"] == 0:
        shift_reason = "no variant built" + (f" (not built: {', '.join(reasons.index)})" if len(reasons) else "")
    elif n == 0:
        shift_reason = "no paper with this configuration's parsed score on both the variant and the original"
    else:
        shift_reason = None
    usable = row["sigma_null_reason"] is None
    units = shift / sigma if usable and n else float("nan")
    row.update(shift_mean=shift, shift_ci_low=lo, shift_ci_high=hi, shift_null_reason=shift_reason,
               shift_ci_null_reason=shift_reason or (NOT_ONE_PAPER if n == 1 else None),
               shift_noise_units=units,
               shift_ci_low_noise_units=lo / sigma if usable else float("nan"),
               shift_ci_high_noise_units=hi / sigma if usable else float("nan"),
               noise_se=sigma * np.sqrt(papers["factor"].sum()) / n if n and not _nan(sigma) else float("nan"),
               sensitivity_noise_units=-units if family == SOUNDNESS else float("nan"),
               invariance_noise_units=abs(units) if family in INVARIANT else float("nan"))
    row.update(_gameability(papers, family, sigma, tol["noise_k"]))
    row.update(_detection(built, family))
    row.update(_verdict(row, family, tol))
    return row


def _gameability(papers: pd.DataFrame, family: str, sigma: float, k: float) -> dict:
    """Share of papers whose edit raised the score by more than k·σ·sqrt(f_i), with a Wilson interval
    (n = papers); soundness edits are not a way to game a reviewer, so they have none."""
    out = {"n_gamed_papers": None, "gameability": float("nan"), "gameability_ci_low": float("nan"),
           "gameability_ci_high": float("nan"), "gameability_null_reason": None}
    if family == SOUNDNESS:
        out["gameability_null_reason"] = "soundness edits should lower the score: gameability is not asked"
    elif papers.empty:
        out["gameability_null_reason"] = "no paper with scores on both versions"
    elif _nan(sigma):
        out["gameability_null_reason"] = "no noise band: " + _sigma_reason(sigma)
    else:
        band = k * sigma * np.sqrt(papers["factor"].to_numpy())
        gamed = int((papers["shift"].to_numpy() > band).sum())
        share = gamed / len(papers)
        lo, hi = wilson_interval(share, len(papers))
        out.update(n_gamed_papers=gamed, gameability=share, gameability_ci_low=lo, gameability_ci_high=hi)
    return out


def _detection(built: pd.DataFrame, family: str) -> dict:
    out = {"detection_judge_config": None, "n_reviews_judged": None, "n_reviews_mentioning": None,
           "detection_rate": float("nan"), "detection_null_reason": None}
    if family != SOUNDNESS:
        return out
    judged = int(built["n_reviews_judged"].fillna(0).sum())
    configs = sorted(built["detection_judge_config"].dropna().unique().tolist())
    out.update(n_reviews_judged=judged, detection_judge_config=",".join(configs) or None)
    if judged == 0:
        out["detection_null_reason"] = "no review of these variants read by the mention judge"
    else:
        out["n_reviews_mentioning"] = int(built["n_reviews_mentioning"].fillna(0).sum())
        out["detection_rate"] = out["n_reviews_mentioning"] / judged
    return out


def _verdict(row: dict, family: str, tol: dict) -> dict:
    """pass | fail on the shift's point estimate in noise units (the interval is shown beside it, not used);
    not_measured with why when there is none."""
    u = row["shift_noise_units"]
    if _nan(u):
        why = row["shift_null_reason"] if row["n_papers"] == 0 else row["sigma_null_reason"]
        return {"verdict": "not_measured", "verdict_reason": why}
    if family == SOUNDNESS:
        need = tol["sensitivity_min_noise_units"]
        ok, rule = u <= -need, f"shift {u:+.2f}σ, sensitivity needs ≤ {-need:+.2f}σ"
    elif family == INJECTION:
        top = tol["invariance_max_noise_units"]
        ok, rule = u <= top, f"shift {u:+.2f}σ, an injection may raise it by at most {top:.2f}σ"
    else:
        top = tol["invariance_max_noise_units"]
        ok, rule = abs(u) <= top, f"|shift| {abs(u):.2f}σ, invariance allows at most {top:.2f}σ"
    return {"verdict": "pass" if ok else "fail", "verdict_reason": rule}


def _discrimination(rows: list[dict]) -> None:
    """On each soundness row of one (study, configuration): |its shift| / max(|presentation shift|,
    |prestige shift|, their noise SEs), from the families' 'all' rows. The floor at the noise SE keeps the
    ratio finite and honest: an invariance shift smaller than its own noise cannot be told from 0, and
    dividing by it would make any reviewer look perfectly discriminating."""
    invariant = [r for r in rows if r["family"] in INVARIANT and r["edit"] == ALL and r["n_papers"] > 0]
    for r in rows:
        r["discrimination"], r["discrimination_null_reason"] = float("nan"), None
        if r["family"] != SOUNDNESS:
            continue
        if r["n_papers"] == 0:
            r["discrimination_null_reason"] = r["shift_null_reason"]
        elif not invariant:
            r["discrimination_null_reason"] = "no presentation or prestige edit measured"
        else:
            floors = [abs(i["shift_mean"]) for i in invariant] + [i["noise_se"] for i in invariant]
            floor = max((f for f in floors if not _nan(f)), default=0.0)
            if floor == 0:
                r["discrimination_null_reason"] = ("invariance shifts are 0 and σ is " +
                                                   ("unknown" if _nan(r["sigma"]) else "0") + ": no floor")
            else:
                r["discrimination"] = abs(r["shift_mean"]) / floor


def cards_table(pairs: pd.DataFrame, noise: pd.DataFrame, tolerances: pd.DataFrame, *, seed: int) -> pd.DataFrame:
    """stress_cards from int_stress_pairs, int_stress_noise (σ per study × configuration) and
    int_stress_tolerances (per study)."""
    sigmas = {(r["study_id"], r["reviewer_config"]): r for r in noise.to_dict("records")}
    tols = {r["study_id"]: r for r in tolerances.to_dict("records")}
    out = []
    for (study, config), cfg_pairs in pairs.groupby(["study_id", "reviewer_config"], sort=True):
        s = sigmas.get((study, config), {})
        sigma = float(s.get("within_paper_sd", float("nan")))
        n_sigma = int(s.get("n_papers_repeated", 0) or 0)
        rows = []
        for family, fam in cfg_pairs.groupby("family", sort=True):
            for edit, g in [*fam.groupby("edit", sort=True), (ALL, fam)]:
                row = card_row(g, sigma=sigma, n_sigma_papers=n_sigma, tol=tols[study], seed=seed)
                rows.append({"stress_card_id": join_id(study, config, family, edit), "study_id": study,
                             "reviewer_config": config, "reviewer": g["reviewer"].dropna().iloc[0]
                             if g["reviewer"].notna().any() else None, "family": family, "edit": edit, **row})
        _discrimination(rows)
        out += rows
    return typed_frame(out, COLUMNS)
