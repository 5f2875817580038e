"""Frames in, frames out: what the dbt Python models for reliability §5 and §6 compute."""

import json
from collections.abc import Callable

import numpy as np
import pandas as pd

from metrics.distribution.fitting import DIRECT_N, N_TARGETS, PaperData, fit_and_evaluate
from metrics.distribution.granularity import compare_paper_summaries
from metrics.distribution.probe import ProbeParseError, probe_distribution

PROB_COLUMNS = [f"prob_{s}" for s in range(1, 11)]
METHODS = ["quick", "standard"] + [f"direct_{k}" for k in DIRECT_N]


# ---- probes --------------------------------------------------------------------------------------
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
        row = {"llm_call_id": c["llm_call_id"], "request_key": c["request_key"], "paper_id": c["subject_id"],
               "probe_config": c["reviewer_config"], "provider": c["provider"], "model": c["model"],
               "prompt_hash": c["prompt_hash"], "sample_index": int(c["sample_index"]),
               "occurred_at": c["occurred_at"], "answer_score": _answer(c["response_text"]),
               "parse_error": None, "ten_method": None, "mass_kept": None, "p_zero_after_one": None,
               "continuation_llm_call_id": None, "candidates": None, **{k: None for k in PROB_COLUMNS}}
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
                       **dict(zip(PROB_COLUMNS, d.r.tolist())))
        rows.append(row)
    out = pd.DataFrame(rows, columns=["llm_call_id", "request_key", "paper_id", "probe_config", "provider", "model",
                                      "prompt_hash", "sample_index", "occurred_at", "answer_score", "parse_error",
                                      "ten_method", "mass_kept", "p_zero_after_one", "continuation_llm_call_id",
                                      "candidates", *PROB_COLUMNS])
    out["is_parsed"] = out["parse_error"].isna()
    for col in ["mass_kept", "p_zero_after_one", *PROB_COLUMNS]:
        out[col] = out[col].astype("float64")
    out["answer_score"] = out["answer_score"].astype("Int64")
    return out


# ---- distribution estimation ---------------------------------------------------------------------
DIST_COLUMNS = {"distribution_estimation_id": "object", "probe_config": "object", "review_config": "object",
                "provider": "object", "model": "object", "method": "object", "n_papers": "int64",
                "n_splits": "int64", "risk": "float64", "risk_ci_low": "float64", "risk_ci_high": "float64",
                "acceptance_auc": "float64", "n_papers_labelled": "int64", "chosen_params": "object"}


def _paper_data(probes: pd.DataFrame, scores: pd.DataFrame, accepted: dict) -> list[PaperData]:
    out = []
    by_paper = {p: g.sort_values("sample_index")["overall_score"].to_numpy() for p, g in scores.groupby("paper_id")}
    for _, pr in probes.sort_values("paper_id").iterrows():
        s = by_paper.get(pr["paper_id"])
        if s is None or len(s) < N_TARGETS:
            continue
        r = pr[PROB_COLUMNS].to_numpy(dtype=float)
        present = np.array([str(k) in (pr["candidates"] or "").split(",") for k in range(1, 11)])
        acc = accepted.get(pr["paper_id"])
        out.append(PaperData(pr["paper_id"], r, present, s[:N_TARGETS].astype(int),
                             None if acc is None or pd.isna(acc) else bool(acc)))
    return out


def distribution_table(probes: pd.DataFrame, scores: pd.DataFrame, context: pd.DataFrame,
                       n_splits: int = 30, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per (probe configuration, integer review configuration of the same model) and method: held-out
    risk with a paper-bootstrap interval and acceptance AUC. Pairs with fewer than 4 usable papers
    (parsed probe + five parsed full reviews) are left out."""
    accepted = dict(zip(context["paper_id"], context["is_accepted"])) if "is_accepted" in context else {}
    probes = probes[probes["is_parsed"]].sort_values("sample_index").drop_duplicates(
        ["probe_config", "paper_id"], keep="first")  # one probe per paper: sample 0
    ints = scores[(scores["prompt_template"] == "reviewer_scoring") & scores["is_parsed"].astype(bool)]
    rows = []
    for (pcfg, prov, model), pg in probes.groupby(["probe_config", "provider", "model"]):
        for rcfg, sg in ints[(ints["provider"] == prov) & (ints["model"] == model)].groupby("reviewer_config"):
            papers = _paper_data(pg, sg, accepted)
            if len(papers) < 4:
                continue
            res = fit_and_evaluate(papers, n_splits=n_splits, seed=seed, n_boot=n_boot)
            chosen = json.dumps([dict(zip(["T", "a0", "b0", "w"], c)) for c in res.chosen])
            n_lab = sum(p.accepted is not None for p in papers)
            for m in res.methods:
                rows.append({"distribution_estimation_id": f"{pcfg}|{rcfg}|{m.method}", "probe_config": pcfg,
                             "review_config": rcfg, "provider": prov, "model": model, "method": m.method,
                             "n_papers": res.n_papers, "n_splits": res.n_splits, "risk": m.risk,
                             "risk_ci_low": m.risk_ci_low, "risk_ci_high": m.risk_ci_high,
                             "acceptance_auc": m.auc, "n_papers_labelled": n_lab, "chosen_params": chosen})
    return pd.DataFrame(rows, columns=list(DIST_COLUMNS)).astype(DIST_COLUMNS)


# ---- granularity ---------------------------------------------------------------------------------
GRAN_COLUMNS = {"granularity_pair_id": "object", "integer_config": "object", "decimal_config": "object",
                "provider": "object", "model": "object", "n_papers": "int64", "n_decimal_reviews": "int64",
                "n_decimal_invalid": "int64", "decimal_invalid_rate": "float64", "mean_shift": "float64",
                "mean_shift_ci_low": "float64", "mean_shift_ci_high": "float64",
                "within_paper_sd_integer": "float64", "within_paper_sd_decimal": "float64",
                "n_papers_human": "int64", "mae_integer": "float64", "mae_decimal": "float64",
                "mae_change": "float64", "mae_change_ci_low": "float64", "mae_change_ci_high": "float64"}


def granularity_table(papers: pd.DataFrame, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per (integer, decimal) configuration pair: from int_granularity_papers rows."""
    rows = []
    for pair, g in papers.groupby("granularity_pair_id"):
        n_dec = int(g["n_decimal_scores"].sum() + g["n_decimal_invalid"].sum())
        c = g[g["is_comparable"].astype(bool)]
        base = {"granularity_pair_id": pair, "integer_config": g["integer_config"].iloc[0],
                "decimal_config": g["decimal_config"].iloc[0], "provider": g["provider"].iloc[0],
                "model": g["model"].iloc[0], "n_papers": len(c), "n_decimal_reviews": n_dec,
                "n_decimal_invalid": int(g["n_decimal_invalid"].sum()),
                "decimal_invalid_rate": g["n_decimal_invalid"].sum() / n_dec if n_dec else None}
        if len(c):
            res = compare_paper_summaries(c["integer_mean"], c["decimal_mean"], c["integer_variance"].astype(float),
                                          c["decimal_variance"].astype(float), c["human_score_mean"].astype(float),
                                          n_boot=n_boot, seed=seed)
            base.update(mean_shift=res.mean_shift, mean_shift_ci_low=res.mean_shift_ci_low,
                        mean_shift_ci_high=res.mean_shift_ci_high, within_paper_sd_integer=res.within_sd_integer,
                        within_paper_sd_decimal=res.within_sd_decimal, n_papers_human=res.n_papers_human,
                        mae_integer=res.mae_integer, mae_decimal=res.mae_decimal, mae_change=res.mae_change,
                        mae_change_ci_low=res.mae_change_ci_low, mae_change_ci_high=res.mae_change_ci_high)
        else:
            base["n_papers_human"] = 0
        rows.append(base)
    return pd.DataFrame(rows, columns=list(GRAN_COLUMNS)).astype(GRAN_COLUMNS)
