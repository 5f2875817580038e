"""text_overlap's rows: each AI review against the human reviews of the same paper.

Pairing and averaging [default, not in source]: every (review, human review of the same paper) pair
is scored with metrics.text.overlap (candidate = the review, reference = the human review); a
review's score is the mean over its paper's human reviews; a reviewer's score is the mean over its
reviews that have at least one human review to compare with (each review weighs the same). The
reference row (reviewer 'human') pairs each human review with the OTHER human reviews of its paper,
so it needs two of them. A BLEU-4 that is undefined (a text under 4 tokens) is left out of the means
and the pairs that had one are counted. BERTScore (RoBERTa-large in the source) needs weights this
machine does not have: null with bertscore_status 'weights unavailable'."""

from collections.abc import Callable

import pandas as pd

from metrics.text.overlap import bleu_4, rouge_1, rouge_l, tokens

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
    """review_key → tokens, read and tokenized on first use: a review of a paper without a human
    review to compare with is never read (at 1 M reviews, reading every text was most of the mart)."""

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
        toks = _Tokens(text_of)
        for study_id, s in reviews.groupby("study_id", sort=True):
            humans = s[s["source"] == "human"]
            by_paper = {p: [k for k in g["review_key"] if toks[k]] for p, g in humans.groupby("paper_id")}
            for (source, reviewer), g in s.groupby(["source", "reviewer"], sort=True):
                rows.append(_row(study_id, source, reviewer, g, by_paper, toks))
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)


def _row(study_id, source, reviewer, g: pd.DataFrame, by_paper: dict, toks: dict) -> dict:
    per_review, papers, n_pairs, n_bleu = [], set(), 0, 0
    for key, paper in zip(g["review_key"], g["paper_id"], strict=True):
        refs = [h for h in by_paper.get(paper, []) if h != key]  # a human review is not its own reference
        if not refs:
            continue
        cand = toks[key]
        if not cand:
            continue
        scores = [(rouge_1(cand, toks[h]), rouge_l(cand, toks[h]), bleu_4(cand, toks[h])) for h in refs]
        n_pairs += len(scores)
        n_bleu += sum(b is not None for _, _, b in scores)
        papers.add(paper)
        per_review.append(tuple(_mean([s[i] for s in scores]) for i in range(3)))
    reason = None
    if not per_review:
        reason = "no_other_human_review" if source == "human" else "no_human_review"
        if not any(toks[k] for k in g["review_key"]):
            reason = "no_review_text"
    return {"text_overlap_id": f"{study_id}|{source}|{reviewer}", "study_id": study_id, "source": source,
            "reviewer": reviewer, "is_reference": source == "human", "n_reviews": len(g),
            "n_reviews_compared": len(per_review), "n_papers_compared": len(papers), "n_pairs": n_pairs,
            "n_pairs_bleu": n_bleu, "rouge_1": _mean([r[0] for r in per_review]),
            "rouge_l": _mean([r[1] for r in per_review]), "bleu_4": _mean([r[2] for r in per_review]),
            "bertscore_f1": None, "bertscore_status": BERTSCORE_STATUS, "null_reason": reason}
