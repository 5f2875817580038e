"""Frames in, frames out: what the dbt Python models for reliability §5 and §6 compute.

Once the inputs carry study_id, every mart is keyed by it (study_id first), so studies never pool."""

import json
from collections.abc import Callable

import numpy as np
import pandas as pd

from metrics.distribution.fitting import DIRECT_N, N_TARGETS, PaperData, fit_and_evaluate
from metrics.distribution.granularity import INTEGER_ROUNDS, compare
from metrics.distribution.probe import ProbeParseError, probe_distribution
from metrics.stats.keys import STUDY, has_study, join_id, key_columns

PROB_COLUMNS = [f"prob_{s}" for s in range(1, 11)]
METHODS = ["quick", "standard"] + [f"direct_{k}" for k in DIRECT_N]


def _first_ok(calls: pd.DataFrame, purpose: str) -> pd.DataFrame:
    c = calls[(calls["purpose"] == purpose) & calls["is_ok"].astype(bool)]
    return c.sort_values(["occurred_at", "llm_call_id"]).drop_duplicates("request_key", keep="first")


def _present(value) -> bool:
    """A real value, not None / NaN / NA (pandas turns a missing string into any of them)."""
    return not (value is None or value is pd.NA or (isinstance(value, float) and value != value))


def _answer(text) -> int | None:
    try:
        value = json.loads(text).get("overall_score")
    except (ValueError, AttributeError, TypeError):
        return None
    return int(value) if isinstance(value, (int, float)) and float(value).is_integer() else None


def parse_probes(calls: pd.DataFrame, read_blob: Callable[[str], str]) -> pd.DataFrame:
    """One row per ok probe call (first per request_key): r_i(s) as prob_1..prob_10, or a parse_error."""
    probes = _first_ok(calls, "score_probe")
    conts = _first_ok(calls, "score_probe_continuation")
    link = ["subject_id", "provider", "model", "prompt_hash", "sample_index", "params_json"]
    cont_by = {tuple(r[k] for k in link): r for _, r in conts.iterrows()}
    rows = []
    for _, c in probes.iterrows():
        row = {**({STUDY: c[STUDY]} if has_study(calls) else {}), "llm_call_id": c["llm_call_id"],
               "request_key": c["request_key"], "paper_id": c["subject_id"],
               "probe_config": c["reviewer_config"], "provider": c["provider"], "model": c["model"],
               "prompt_hash": c["prompt_hash"], "sample_index": int(c["sample_index"]),
               "occurred_at": c["occurred_at"], "answer_score": _answer(c["response_text"]),
               "parse_error": None, "ten_method": None, "mass_kept": None, "p_zero_after_one": None,
               "continuation_llm_call_id": None, "candidates": None, **dict.fromkeys(PROB_COLUMNS)}
        cont = cont_by.get(tuple(c[k] for k in link))
        try:
            if not _present(c["logprobs_sha256"]) or c["logprobs_sha256"] == "":
                raise ProbeParseError("no logprobs recorded")
            lp = json.loads(read_blob(c["logprobs_sha256"]))
            cont_lp = None
            if cont is not None and _present(cont["logprobs_sha256"]):
                cont_lp = json.loads(read_blob(cont["logprobs_sha256"]))
                row["continuation_llm_call_id"] = cont["llm_call_id"]
            d = probe_distribution(lp, cont_lp)
        except (ProbeParseError, OSError, ValueError) as exc:
            row["parse_error"] = f"{type(exc).__name__}: {exc}"[:300]
        else:
            row.update(ten_method=d.ten_method, mass_kept=d.mass_kept, p_zero_after_one=d.p_zero_after_one,
                       candidates=",".join(str(s) for s in range(1, 11) if d.present[s - 1]),
                       **dict(zip(PROB_COLUMNS, d.r.tolist(), strict=True)))
        rows.append(row)
    out = pd.DataFrame(rows, columns=[*key_columns(calls), "llm_call_id", "request_key", "paper_id", "probe_config",
                                      "provider", "model", "prompt_hash", "sample_index", "occurred_at",
                                      "answer_score", "parse_error", "ten_method", "mass_kept", "p_zero_after_one",
                                      "continuation_llm_call_id", "candidates", *PROB_COLUMNS])
    out["is_parsed"] = out["parse_error"].isna()
    for col in ["mass_kept", "p_zero_after_one", *PROB_COLUMNS]:
        out[col] = out[col].astype("float64")
    out["answer_score"] = out["answer_score"].astype("Int64")
    return out


DIST_COLUMNS = {"distribution_estimation_id": "object", "probe_config": "object", "review_config": "object",
                "provider": "object", "model": "object", "method": "object", "n_papers": "int64",
                "n_splits": "int64", "risk": "float64", "risk_ci_low": "float64", "risk_ci_high": "float64",
                "standard_minus_risk": "float64", "standard_minus_risk_ci_low": "float64",
                "standard_minus_risk_ci_high": "float64", "acceptance_auc": "float64",
                "n_papers_labelled": "int64", "acceptance_auc_excluding_withdrawn": "float64",
                "n_papers_labelled_not_withdrawn": "int64", "chosen_params": "object"}


def _flag(value) -> bool | None:
    return None if value is None or pd.isna(value) else bool(value)


def _paper_data(probes: pd.DataFrame, scores: pd.DataFrame, accepted: dict, withdrawn: dict) -> list[PaperData]:
    out = []
    by_paper = {p: g.sort_values("sample_index")["overall_score"].to_numpy() for p, g in scores.groupby("paper_id")}
    for _, pr in probes.sort_values("paper_id").iterrows():
        s = by_paper.get(pr["paper_id"])
        if s is None or len(s) < N_TARGETS:
            continue
        r = pr[PROB_COLUMNS].to_numpy(dtype=float)
        present = np.array([str(k) in (pr["candidates"] or "").split(",") for k in range(1, 11)])
        out.append(PaperData(pr["paper_id"], r, present, s[:N_TARGETS].astype(int),
                             _flag(accepted.get(pr["paper_id"])), _flag(withdrawn.get(pr["paper_id"]))))
    return out


def _by_study(scores: pd.DataFrame):
    """(study key dict, scores) per study of the scores, or one group without studies."""
    if not has_study(scores):
        yield {}, scores
        return
    for study, sg in scores.groupby(STUDY, sort=True):
        yield {STUDY: study}, sg


def distribution_table(probes: pd.DataFrame, scores: pd.DataFrame, context: pd.DataFrame,
                       n_splits: int = 30, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per (study, probe configuration, integer review configuration of the same model) and method:
    held-out risk with a paper-bootstrap interval, Standard − direct_n (n = 2, 3) with a paired
    interval, and acceptance AUC with and without withdrawn papers. Pairs with fewer than 4 usable
    papers (parsed probe + five parsed full reviews) are left out."""
    accepted, withdrawn = (dict(zip(context["paper_id"], context[c], strict=True)) if c in context else {}
                           for c in ("is_accepted", "is_withdrawn"))
    # One probe per paper: sample 0. A probe's study_id names the study that paid for the call, not
    # the studies that cover the paper: study membership comes from the scores (a paper enters a
    # study's row only with five of that study's integer reviews).
    probes = probes[probes["is_parsed"].astype(bool)].sort_values("sample_index").drop_duplicates(
        ["probe_config", "paper_id"], keep="first")
    ints = scores[(scores["prompt_template"] == "reviewer_scoring") & scores["is_parsed"].astype(bool)]
    rows = []
    for study, study_ints in _by_study(ints):
        for (pcfg, prov, model), pg in probes.groupby(["probe_config", "provider", "model"]):
            same_model = study_ints[(study_ints["provider"] == prov) & (study_ints["model"] == model)]
            for rcfg, sg in same_model.groupby("reviewer_config"):
                papers = _paper_data(pg, sg, accepted, withdrawn)
                if len(papers) < 4:
                    continue
                res = fit_and_evaluate(papers, n_splits=n_splits, seed=seed, n_boot=n_boot)
                chosen = json.dumps([dict(zip(["T", "a0", "b0", "w"], c, strict=True)) for c in res.chosen])
                labelled = [p for p in papers if p.accepted is not None]
                for m in res.methods:
                    rows.append({**study,
                                 "distribution_estimation_id": join_id(*study.values(), pcfg, rcfg, m.method),
                                 "probe_config": pcfg, "review_config": rcfg, "provider": prov, "model": model,
                                 "method": m.method, "n_papers": res.n_papers, "n_splits": res.n_splits,
                                 "risk": m.risk, "risk_ci_low": m.risk_ci_low, "risk_ci_high": m.risk_ci_high,
                                 "standard_minus_risk": m.standard_minus_risk,
                                 "standard_minus_risk_ci_low": m.standard_minus_risk_ci_low,
                                 "standard_minus_risk_ci_high": m.standard_minus_risk_ci_high,
                                 "acceptance_auc": m.auc, "n_papers_labelled": len(labelled),
                                 "acceptance_auc_excluding_withdrawn": m.auc_excluding_withdrawn,
                                 "n_papers_labelled_not_withdrawn": sum(not p.withdrawn for p in labelled),
                                 "chosen_params": chosen})
    columns = {STUDY: "object", **DIST_COLUMNS} if has_study(ints) else DIST_COLUMNS
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


GRAN_COLUMNS = {"granularity_pair_id": "object", "integer_config": "object", "decimal_config": "object",
                "provider": "object", "model": "object", "n_integer_rounds": "int64", "n_papers": "int64",
                "n_decimal_reviews": "int64", "n_decimal_invalid": "int64", "decimal_invalid_rate": "float64",
                "mean_shift": "float64", "mean_shift_ci_low": "float64", "mean_shift_ci_high": "float64",
                "within_paper_sd_integer": "float64", "within_paper_sd_decimal": "float64",
                "n_papers_human": "int64", "mae_integer": "float64", "mae_decimal": "float64",
                "mae_change": "float64", "mae_change_ci_low": "float64", "mae_change_ci_high": "float64"}


def _valid_scores(scores: pd.DataFrame, config: str, papers: set, first_rounds: int | None = None) -> dict:
    """paper -> parsed scores of one configuration, optionally only rounds 1..first_rounds."""
    s = scores[(scores["reviewer_config"] == config) & scores["paper_id"].isin(papers)]
    if "is_parsed" in s:
        s = s[s["is_parsed"].astype(bool)]
    s = s.dropna(subset=["overall_score"])
    if first_rounds is not None:
        s = s[s["sample_index"] < first_rounds]  # sample_index counts rounds from 0
    return {p: g.sort_values("sample_index")["overall_score"].to_numpy(dtype=float)
            for p, g in s.groupby("paper_id")}


def granularity_table(papers: pd.DataFrame, scores: pd.DataFrame, n_boot: int = 10_000,
                      seed: int = 0) -> pd.DataFrame:
    """Per (study?, integer, decimal) configuration pair: pairs, H_i and invalid-answer counts from
    int_granularity_papers rows; the scores themselves from fct_ai_review_scores, the integer
    control cut to exactly its first INTEGER_ROUNDS rounds."""
    keys, rows = key_columns(papers, "granularity_pair_id"), []
    for key, g in papers.groupby(keys, sort=True):
        key = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        pool = scores[scores[STUDY] == key[STUDY]] if has_study(papers) and has_study(scores) else scores
        ids = set(g["paper_id"])
        integer = _valid_scores(pool, g["integer_config"].iloc[0], ids, INTEGER_ROUNDS)
        decimal = _valid_scores(pool, g["decimal_config"].iloc[0], ids)
        comparable = {p for p in integer.keys() & decimal.keys() if len(integer[p]) and len(decimal[p])}
        n_dec = int(g["n_decimal_scores"].sum() + g["n_decimal_invalid"].sum())
        base = {**key, "integer_config": g["integer_config"].iloc[0],
                "decimal_config": g["decimal_config"].iloc[0], "provider": g["provider"].iloc[0],
                "model": g["model"].iloc[0], "n_integer_rounds": INTEGER_ROUNDS, "n_papers": len(comparable),
                "n_decimal_reviews": n_dec, "n_decimal_invalid": int(g["n_decimal_invalid"].sum()),
                "decimal_invalid_rate": g["n_decimal_invalid"].sum() / n_dec if n_dec else None,
                "n_papers_human": 0}
        if comparable:
            human = dict(zip(g["paper_id"], g["human_score_mean"].astype(float), strict=True))
            res = compare({p: integer[p] for p in comparable}, {p: decimal[p] for p in comparable},
                          human, n_boot=n_boot, seed=seed)
            base.update(mean_shift=res.mean_shift, mean_shift_ci_low=res.mean_shift_ci_low,
                        mean_shift_ci_high=res.mean_shift_ci_high, within_paper_sd_integer=res.within_sd_integer,
                        within_paper_sd_decimal=res.within_sd_decimal, n_papers_human=res.n_papers_human,
                        mae_integer=res.mae_integer, mae_decimal=res.mae_decimal, mae_change=res.mae_change,
                        mae_change_ci_low=res.mae_change_ci_low, mae_change_ci_high=res.mae_change_ci_high)
        rows.append(base)
    columns = {STUDY: "object", **GRAN_COLUMNS} if has_study(papers) else GRAN_COLUMNS
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)
