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
candidate or reference shorter than 4 tokens (no 4-gram to count).

overlap_table: text_overlap's rows, each AI review against the human reviews of the same paper.
Pairing and averaging (ours: the paper does not say): every (review, human review of the same paper) pair
is scored with the measures above (candidate = the review, reference = the human review); a
review's score is the mean over its paper's human reviews; a reviewer's score is the mean over its
reviews that have at least one human review to compare with (each review weighs the same). The
reference row (reviewer 'human') pairs each human review with the OTHER human reviews of its paper,
so it needs two of them. A BLEU-4 that is undefined (a text under 4 tokens) is left out of the means
and the pairs that had one are counted. BERTScore (RoBERTa-large in the source) needs weights this
machine does not have: null with bertscore_status 'weights unavailable'."""

import math
import re
from collections import Counter
from collections.abc import Callable

import pandas as pd

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


BERTSCORE_STATUS = "weights unavailable"
KEYS = ["study_id", "source", "reviewer"]
COLUMNS = {"text_overlap_id": "string", "study_id": "string", "source": "string", "reviewer": "string",
           "is_reference": "bool", "n_reviews": "int64", "n_reviews_compared": "int64", "n_papers_compared": "int64",
           "n_pairs": "int64", "n_pairs_bleu": "int64", "rouge_1": "float64", "rouge_l": "float64",
           "bleu_4": "float64", "bertscore_f1": "float64", "bertscore_status": "string", "null_reason": "string"}


def _mean(values: list) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


class _Tokens(dict):
    """review_key → tokens, read and tokenized on first use."""

    def __init__(self, text_of: Callable[[str], str | None]):
        super().__init__()
        self.text_of = text_of

    def __missing__(self, key):
        self[key] = found = tokens(self.text_of(key))
        return found


def overlap_table(reviews: pd.DataFrame, text_of: Callable[[str], str | None] | None = None) -> pd.DataFrame:
    """reviews: one row per (study, review) with study_id, review_key, paper_id, source, reviewer, and
    either text (None when unreadable) or `text_of(review_key)` giving it on demand. One row per
    (study, source, reviewer) that has reviews."""
    rows = []
    if len(reviews):
        if text_of is None:
            text_of = dict(zip(reviews["review_key"], reviews["text"], strict=True)).get
        for study_id, s in reviews.groupby("study_id", sort=True):
            scored = _score_by_paper(s, text_of)
            for (source, reviewer), g in s.groupby(["source", "reviewer"], sort=True):
                rows.append(_row(study_id, source, reviewer, g, scored, text_of))
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)


def _score_by_paper(s: pd.DataFrame, text_of: Callable[[str], str | None]) -> dict[str, tuple]:
    """review_key → (its three measures averaged over its paper's other human reviews, pairs, pairs
    with a BLEU-4), for each review of one study that has text and a human review to compare with.
    Paper by paper, so only one paper's tokens are held at a time (at 1 M reviews, keeping every
    review's tokens took gigabytes); a review of a paper without a human review is never read."""
    scored: dict[str, tuple] = {}
    for _, paper in s.groupby("paper_id", sort=False):
        toks = _Tokens(text_of)
        humans = [k for k in paper.loc[paper["source"] == "human", "review_key"] if toks[k]]
        if not humans:
            continue
        for key in paper["review_key"]:
            refs = [h for h in humans if h != key]  # a human review is not its own reference
            if not refs or key in scored:
                continue
            cand = toks[key]
            if not cand:
                continue
            scores = [(rouge_1(cand, toks[h]), rouge_l(cand, toks[h]), bleu_4(cand, toks[h])) for h in refs]
            scored[key] = (tuple(_mean([x[i] for x in scores]) for i in range(3)), len(scores),
                           sum(b is not None for _, _, b in scores))
    return scored


def _row(study_id, source, reviewer, g: pd.DataFrame, scored: dict, text_of: Callable) -> dict:
    per_review, papers, n_pairs, n_bleu = [], set(), 0, 0
    for key, paper in zip(g["review_key"], g["paper_id"], strict=True):
        if key not in scored:
            continue
        means, pairs, bleus = scored[key]
        n_pairs += pairs
        n_bleu += bleus
        papers.add(paper)
        per_review.append(means)
    reason = None
    if not per_review:
        reason = "no_other_human_review" if source == "human" else "no_human_review"
        if not any(tokens(text_of(k)) for k in g["review_key"]):
            reason = "no_review_text"
    return {"text_overlap_id": f"{study_id}|{source}|{reviewer}", "study_id": study_id, "source": source,
            "reviewer": reviewer, "is_reference": source == "human", "n_reviews": len(g),
            "n_reviews_compared": len(per_review), "n_papers_compared": len(papers), "n_pairs": n_pairs,
            "n_pairs_bleu": n_bleu, "rouge_1": _mean([r[0] for r in per_review]),
            "rouge_l": _mean([r[1] for r in per_review]), "bleu_4": _mean([r[2] for r in per_review]),
            "bertscore_f1": None, "bertscore_status": BERTSCORE_STATUS, "null_reason": reason}
