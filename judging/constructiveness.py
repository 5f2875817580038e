"""Constructiveness (PRISM §4): a review's atomic comments, each rated 0-2 on actionability,
specificity, justification, solution and tone. One call per review (judge_constructiveness_comments),
one judgment per review, step `comments`; dbt computes CLC, MCS and the shares.

A comment with a missing or non-integer rating is dropped (`bad_rating`; PRISM would score it 0, which
is a number the judge never gave); a rating outside 0..2 is clamped and counted (`clamped`, per
rating), as PRISM clamps. `comment_index` is the comment's 0-based position in the judge's list, so a
gap shows where one was dropped. The anchor quote is checked against the review (`anchor_found`) but
a comment is kept without one: PRISM's comments are paraphrases, the anchor only locates them.
"""

from collections.abc import Sequence

from judging.base import JudgeContext, Judgment, answer, find_verbatim, judge_request, review_inputs
from judging.reviews import JudgedReview
from judging.spans import judged_text

JUDGE = "constructiveness"
STEP = "comments"
TEMPLATES = ("judge_constructiveness_comments",)
PARSER_VERSION = "constructiveness-1"
RATINGS = ("actionability", "specificity", "justification", "solution", "tone")
MAX_COMMENTS = 6  # the schema's maxItems
# The longest answer the schema allows: 6 comments x (30 + 150 + 80 characters of section, text and
# anchor ≈ 65 tokens, + ~40 tokens of keys and five ratings) ≈ 630 tokens; the local model writes
# ~15 tokens/s, so a full answer takes ~40 s and a bigger budget would only allow longer stalls.
MAX_TOKENS = 700


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """One constructiveness judgment per review for ctx.repeat; the calls batched over all reviews."""
    max_chars = options.get("max_chars")
    out, todo, reqs, texts = [], [], [], {}
    for r in reviews:
        j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=ctx.repeat,
                     inputs=review_inputs(r))
        out.append(j)
        if not (r.sections and r.text.strip()):
            j.null_reason = "empty_review"  # nothing to rate: no call
            continue
        texts[r.review_key] = text = judged_text(r, ctx.cfg.provider, max_chars)
        j.inputs["chars_judged"] = len(text)
        todo.append(j)
        reqs.append(judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=r.review_key, repeat=ctx.repeat,
                                  max_tokens=MAX_TOKENS, review_text=text))
    for j, res in zip(todo, ctx.call_many(reqs, "constructiveness: comments"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        comments = doc.get("comments") if doc is not None else None
        if not isinstance(comments, list):
            j.null_reason = "unparseable:comments"
            continue
        j.units = _comments(j, comments, texts[j.subject_key])
        if not j.units:
            j.null_reason = "no_comments"
    return out


def _comments(j: Judgment, comments: list, text: str) -> list[dict]:
    if len(comments) > MAX_COMMENTS:  # a schema-less provider may answer more than the schema allows
        j.drop("over_max_comments", len(comments) - MAX_COMMENTS)
    units = []
    for index, c in enumerate(comments[:MAX_COMMENTS]):
        body = c.get("text") if isinstance(c, dict) else None
        if not isinstance(body, str) or not body.strip():
            j.drop("no_text")
            continue
        ratings = {name: _rating(c.get(name)) for name in RATINGS}
        if any(v is None for v in ratings.values()):
            j.drop("bad_rating")
            continue
        clamped = {name: min(2, max(0, v)) for name, v in ratings.items()}
        if n := sum(clamped[name] != ratings[name] for name in RATINGS):
            j.drop("clamped", n)  # counted, not dropped
        anchor = _text(c.get("anchor_quote"))
        units.append({"comment_index": index, "text": body.strip(), "section": _text(c.get("section")),
                      "anchor_quote": anchor,
                      "anchor_found": anchor is not None and find_verbatim(anchor, text) is not None,
                      **clamped})
    return units


def _rating(v) -> int | None:
    """An integer rating (2.0 counts as 2); None for anything else, a bool included."""
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not v.is_integer()):
        return None  # is_integer() is False for nan and inf too
    return int(v)


def _text(v) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None
