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

overlap_table: text_overlap's rows, each AI review against the human reviews of the same paper, made of
review_scores (one row per review, depending on its paper's reviews only: int_text_overlap_reviews,
recomputed per paper) by table_from_review_scores (the text_overlap mart).
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


def _has_tokens(text: str | None) -> bool:
    """bool(tokens(text)) without listing them: a review that is never compared is only asked this."""
    return isinstance(text, str) and _TOKEN.search(text.lower()) is not None


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


REVIEW_COLUMNS = {"study_id": "string", "paper_id": "string", "review_key": "string", "source": "string",
                  "reviewer": "string", "has_text": "bool", "is_compared": "bool", "rouge_1": "float64",
                  "rouge_l": "float64", "bleu_4": "float64", "n_pairs": "int64", "n_pairs_bleu": "int64"}


def overlap_table(reviews: pd.DataFrame, text_of: Callable[[str], str | None] | None = None) -> pd.DataFrame:
    """reviews: one row per (study, review) with study_id, review_key, paper_id, source, reviewer, and
    either text (None when unreadable) or `text_of(review_key)` giving it on demand. One row per
    (study, source, reviewer) that has reviews."""
    return table_from_review_scores(review_scores(reviews, text_of))


def review_scores(reviews: pd.DataFrame, text_of: Callable[[str], str | None] | None = None) -> pd.DataFrame:
    """One row per row of `reviews` (as overlap_table takes them): whether the review has text, and
    when it was compared (a text and a human review of its paper other than itself) its three
    measures averaged over those human reviews and the pair counts. A row depends only on its
    paper's reviews, so a table of these is recomputed paper by paper."""
    found: dict[int, tuple] = {}
    if len(reviews):
        if text_of is None:
            text_of = dict(zip(reviews["review_key"], reviews["text"], strict=True)).get
        for _, paper in reviews.groupby(["study_id", "paper_id"], sort=False, dropna=False):
            toks = _Tokens(text_of)
            scored = _score_paper(paper, toks)
            for i, key in zip(paper.index, paper["review_key"], strict=True):
                found[i] = (bool(toks[key]) if key in toks else _has_tokens(text_of(key)), scored.get(key))
    # column by column: at 1 M reviews a dict per row would hold about a gigabyte at once
    results = [found[i] for i in reviews.index]
    scored = [r[1] for r in results]
    columns = {c: reviews[c].to_numpy(dtype=object) for c in ("study_id", "paper_id", "review_key", "source",
                                                                 "reviewer")}
    columns |= {"has_text": [r[0] for r in results], "is_compared": [s is not None for s in scored],
                **{m: [s[0][i] if s else None for s in scored] for i, m in enumerate(("rouge_1", "rouge_l", "bleu_4"))},
                "n_pairs": [s[1] if s else 0 for s in scored], "n_pairs_bleu": [s[2] if s else 0 for s in scored]}
    return pd.DataFrame(columns, columns=list(REVIEW_COLUMNS)).astype(REVIEW_COLUMNS)


def table_from_review_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """text_overlap's rows from review_scores' rows: one per (study, source, reviewer), each compared
    review weighing the same (means in the rows' order)."""
    rows = []
    for (study_id, source, reviewer), g in scores.groupby(["study_id", "source", "reviewer"], sort=True):
        compared = g[g["is_compared"].to_numpy(dtype=bool)]
        reason = None
        if compared.empty:
            reason = "no_other_human_review" if source == "human" else "no_human_review"
            if not g["has_text"].to_numpy(dtype=bool).any():
                reason = "no_review_text"
        rows.append({"text_overlap_id": f"{study_id}|{source}|{reviewer}", "study_id": study_id, "source": source,
                     "reviewer": reviewer, "is_reference": source == "human", "n_reviews": len(g),
                     "n_reviews_compared": len(compared), "n_papers_compared": compared["paper_id"].nunique(),
                     "n_pairs": int(compared["n_pairs"].sum()), "n_pairs_bleu": int(compared["n_pairs_bleu"].sum()),
                     **{m: _mean([None if pd.isna(v) else float(v) for v in compared[m]])
                        for m in ("rouge_1", "rouge_l", "bleu_4")},
                     "bertscore_f1": None, "bertscore_status": BERTSCORE_STATUS, "null_reason": reason})
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)


def _score_paper(paper: pd.DataFrame, toks: "_Tokens") -> dict[str, tuple]:
    """review_key → (its three measures averaged over its paper's other human reviews, pairs, pairs
    with a BLEU-4), for each review of one paper that has text and a human review to compare with.
    Paper by paper, so only one paper's tokens are held at a time (at 1 M reviews, keeping every
    review's tokens took gigabytes)."""
    scored: dict[str, tuple] = {}
    humans = [k for k in paper.loc[paper["source"] == "human", "review_key"] if toks[k]]
    if not humans:
        return scored
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
