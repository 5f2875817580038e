"""ROUGE-1, ROUGE-L (F1) and BLEU-4 between a candidate text and a reference text, implemented here
(no package: the definitions are short, and the tests work them out by hand).

Tokens: lower-cased runs of letters and digits; everything else separates (as rouge-score's default
tokenizer; no stemming, no stop words removed).
- ROUGE-1 (Lin 2004): overlap = Σ_w min(count_cand(w), count_ref(w)); P = overlap/|cand|,
  R = overlap/|ref|, F1 = 2PR/(P+R) (0 when nothing overlaps).
- ROUGE-L: the longest common subsequence of the token lists; P = LCS/|cand|, R = LCS/|ref|, F1 as above.
- BLEU-4 (Papineni et al. 2002), sentence level, one reference: modified (clipped) n-gram precisions
  p_1..p_4, their geometric mean with weights 1/4, times the brevity penalty BP = 1 if |cand| > |ref|
  else exp(1 − |ref|/|cand|). Smoothing: a precision with no matching n-gram counts 0.1 matches
  (Chen & Cherry 2014, method 1, ε = 0.1, as NLTK's method1), so one missing 4-gram does not zero a
  long review.
Every measure is None (not 0) when it is undefined: an empty candidate or reference, and for BLEU-4 a
candidate or reference shorter than 4 tokens (no 4-gram to count)."""

import math
import re
from collections import Counter

_TOKEN = re.compile(r"[a-z0-9]+")
BLEU_EPSILON = 0.1


def tokens(text: str | None) -> list[str]:
    return _TOKEN.findall(text.lower()) if isinstance(text, str) else []  # None or a frame's NaN: no text


def _f1(hits: float, n_cand: int, n_ref: int) -> float:
    if hits == 0:
        return 0.0
    p, r = hits / n_cand, hits / n_ref
    return 2 * p * r / (p + r)


def rouge_1(cand: list[str], ref: list[str]) -> float | None:
    if not cand or not ref:
        return None
    hits = sum((Counter(cand) & Counter(ref)).values())
    return _f1(hits, len(cand), len(ref))


def lcs_length(a: list[str], b: list[str]) -> int:
    """Bit-parallel LCS (Allison & Dix 1986; Hyyrö 2004): one big-integer step per token of `a`, so a
    pair of 1,000-token reviews costs 1,000 steps, not the 1,000,000 cells of the textbook table.
    Bit j of `v` is 0 where the running LCS grows at b[j]; the LCS is the count of 0 bits."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for j, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for tok in a:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def rouge_l(cand: list[str], ref: list[str]) -> float | None:
    if not cand or not ref:
        return None
    return _f1(lcs_length(cand, ref), len(cand), len(ref))


def _ngrams(toks: list[str], n: int) -> Counter:
    return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))


def bleu_4(cand: list[str], ref: list[str]) -> float | None:
    if len(cand) < 4 or len(ref) < 4:
        return None
    log_p = 0.0
    for n in range(1, 5):
        c, r = _ngrams(cand, n), _ngrams(ref, n)
        hits = sum((c & r).values())  # each candidate n-gram counts at most as often as in the reference
        log_p += math.log((hits or BLEU_EPSILON) / sum(c.values())) / 4
    bp = 1.0 if len(cand) > len(ref) else math.exp(1 - len(ref) / len(cand))
    return bp * math.exp(log_p)


def overlap(cand_text: str | None, ref_text: str | None) -> dict[str, float | None]:
    """The three measures of one (candidate, reference) pair."""
    c, r = tokens(cand_text), tokens(ref_text)
    return {"rouge_1": rouge_1(c, r), "rouge_l": rouge_l(c, r), "bleu_4": bleu_4(c, r)}
