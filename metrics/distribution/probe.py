"""r_i(s) from the top logprobs of a probe's score token.

The probe answers `{"overall_score": N}` under a grammar; the score token is the first output token
holding a digit (the key has none), so its top-20 alternatives are the model's next-token
distribution right after `"overall_score": ` — a distribution over numbers.

"10" is two tokens ("1", "0") in the Qwen/Llama tokenizers, so the first-token probability of "1"
is P(1) + P(10). The choice made here: a second evaluation (the *continuation* probe, the same
prompt with the answer forced to 10) gives P("0" | "1") from the top logprobs at the token after
"1"; then P(10) = P("1")·P("0" | "1") and P(1) = P("1")·(1 − P("0" | "1")) — under the 1..10
grammar only "0" or the end of the number can follow "1". When the probe itself answered "1" or
"10", its own next token already holds P("0" | "1") and no continuation is needed; neither is it
for a tokenizer with a single "10" token. Without any of these, "1" counts as 1 and `ten_method`
says so. Top logprobs are the model's distribution before the grammar constrains sampling (checked
on the local model: the first token's top candidate was "```" while the grammar forced `{"`).
"""

import json
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from peerlake.metrics.stats.keys import STUDY, has_study, key_columns

SCORE_TEXTS = {str(s): s for s in range(1, 11)}


class ProbeParseError(ValueError):
    """The logprobs hold no score token (or no top alternatives for it)."""


@dataclass(frozen=True)
class ProbeDistribution:
    r: np.ndarray  # length 10, scores 1..10, renormalized over the returned candidates
    present: np.ndarray  # bool, which scores were among the returned candidates
    mass_kept: float  # total probability of the "1".."10" candidates before renormalizing
    p_zero_after_one: float | None  # P("0" | "1") from the continuation probe
    ten_method: str  # single_token | same_call | continuation | no_continuation | not_needed


def _candidates(position: dict) -> dict[str, float]:
    """token text (stripped) → summed probability; " 7" and "7" are the same score."""
    out: dict[str, float] = {}
    for alt in position.get("top") or []:
        tok, lp = alt.get("token"), alt.get("logprob")
        if tok is None or lp is None or not math.isfinite(lp):
            continue
        key = tok.strip()
        out[key] = out.get(key, 0.0) + math.exp(lp)
    return out


def score_token_index(logprobs: list[dict]) -> int:
    """Position of the first output token that holds a digit: the score's first token."""
    for i, pos in enumerate(logprobs or []):
        if any(ch.isdigit() for ch in (pos.get("token") or "")):
            return i
    raise ProbeParseError("no output token holds a digit; the probe gave no score")


def answered_one(logprobs: list[dict]) -> bool:
    """The score's first token is "1" and another token follows it (so P("0" | "1") is on record)."""
    i = score_token_index(logprobs)
    return (logprobs[i].get("token") or "").strip() == "1" and i + 1 < len(logprobs)


def zero_after_one(logprobs: list[dict]) -> float:
    """P("0" | "1") from an answer starting "1" (the probe's own, or the continuation forced to 10):
    the "0" among the alternatives at the next token (0 when "0" is not in the top list)."""
    i = score_token_index(logprobs)
    if not answered_one(logprobs):
        raise ProbeParseError(f"continuation probe: expected the answer to start '1' then another token, "
                              f"got {[p.get('token') for p in logprobs[i:i + 2]]}")
    cands = _candidates(logprobs[i + 1])
    if not cands:
        raise ProbeParseError("continuation probe: no top logprobs after '1'")
    return min(1.0, cands.get("0", 0.0))


def probe_distribution(logprobs: list[dict], continuation: list[dict] | None = None) -> ProbeDistribution:
    """Keep the candidates "1".."10" of the score token, split "1" into 1 and 10, renormalize."""
    i = score_token_index(logprobs)
    cands = _candidates(logprobs[i])
    if not cands:
        raise ProbeParseError(f"score token {logprobs[i].get('token')!r} has no top logprobs")
    p = np.zeros(10)
    for text, prob in cands.items():
        if text in SCORE_TEXTS:
            p[SCORE_TEXTS[text] - 1] += prob
    p_zero = None
    if "10" in cands:
        method = "single_token"  # a tokenizer with a "10" token: "1" then means 1
    elif p[0] == 0:
        method = "not_needed"
    elif answered_one(logprobs):
        p_zero = zero_after_one(logprobs)
        p[9], p[0] = p[0] * p_zero, p[0] * (1 - p_zero)
        method = "same_call"
    elif continuation is not None:
        p_zero = zero_after_one(continuation)
        p[9], p[0] = p[0] * p_zero, p[0] * (1 - p_zero)
        method = "continuation"
    else:
        method = "no_continuation"
    mass = float(p.sum())
    if mass <= 0:
        raise ProbeParseError(f"no candidate among 1..10 at the score token; top: {sorted(cands)[:20]}")
    present = p > 0
    if method in ("continuation", "same_call"):
        present[0] = present[9] = True  # both were returned, even if one got zero mass
    return ProbeDistribution(r=p / mass, present=present, mass_kept=mass, p_zero_after_one=p_zero,
                             ten_method=method)


PROB_COLUMNS = [f"prob_{s}" for s in range(1, 11)]


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
