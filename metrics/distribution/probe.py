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

import math
from dataclasses import dataclass

import numpy as np

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
