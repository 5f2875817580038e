"""Constructiveness (PRISM §4): a review's atomic comments, each rated 0-2 on actionability,
specificity, justification, solution and tone. One call per review (judge_constructiveness_comments),
one judgment per review, step `comments`; dbt computes CLC, MCS and the shares.

A comment with a missing or non-integer rating is dropped (`bad_rating`; PRISM would score it 0, which
is a number the judge never gave); a rating outside 0..2 is clamped and counted (`clamped`, per
rating), as PRISM clamps. `comment_index` is the comment's 0-based position in the judge's list, so a
gap shows where one was dropped. The anchor quote is checked against the review (`anchor_found`) but
a comment is kept without one: PRISM's comments are paraphrases, the anchor only locates them.

The judge reads every section of the review, Questions and Suggestions included (PRISM's
format_human_review_full; JudgedReview.for_judge). It asks for ALL comments in review order; the
`constructiveness_comments` cap (judging/caps.py; none on a hosted model) cuts the tail, counted
as `over_max_comments`, and inputs_json keeps `max_comments` and `comments_answered`.
"""

import copy
import dataclasses
from collections.abc import Sequence

from peerlake.judging.base import (
    JudgeContext,
    Judgment,
    ReviewMetric,
    answer_list,
    find_verbatim,
    judge_request,
    review_inputs,
)
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import judged_text

JUDGE = "constructiveness"
ORDER = 4  # its place in judging.registry's lists
# every section: PRISM "needs the complete review" (constructiveness/src/utils.py format_human_review_full)
SECTIONS = None
STEP = "comments"
REVIEW_STEP = STEP  # the step with one judgment per judged review (benchmarks/judge_cost.py counts them)
TEMPLATES = ("judge_constructiveness_comments",)
PARSER_VERSION = "constructiveness-2"  # 2: every section read, all comments asked for, the cap a setting
RATINGS = ("actionability", "specificity", "justification", "solution", "tone")
METRICS = (ReviewMetric("mcs", "Constructiveness: MCS", headline=True),
           ReviewMetric("share_actionable", "Constructiveness: actionable share"),
           ReviewMetric("share_solution", "Constructiveness: solution share"),
           ReviewMetric("share_clc_06", "Constructiveness: CLC >= 0.6 share"))
CARD_SCORE = "mcs"  # the score a judge card retests (int_judge_card_score_repeats)
CAP = "constructiveness_comments"  # judging/caps.py: 6 on the embedded model, none on a hosted one
# Answer tokens. One comment is at most 30 + 150 + 80 characters of section, text and anchor (≈ 65
# tokens) + ~40 tokens of keys and five ratings = 105; + 70 for the frame. Under a cap that is the longest
# answer the narrowed schema allows (cap 6: the 700 the embedded model always had). Without a cap (PRISM:
# every comment) the answer grows with the review: budgeted at one comment per 120 characters of review
# text (PRISM's ARCs run ~250), and never below the judge's max_output_tokens, so a hosted answer is not cut
# (a hosted model bills what it writes, not the budget).
TOKENS_FIXED, TOKENS_PER_COMMENT = 70, 105
CHARS_PER_COMMENT = 120


def budget(n_comments: int) -> int:
    return TOKENS_FIXED + TOKENS_PER_COMMENT * n_comments


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """One constructiveness judgment per review for ctx.repeat; the calls batched over all reviews."""
    reviews = [r.for_judge(JUDGE) for r in reviews]  # every section, Questions included (judging/reviews.py)
    max_chars = options.get("max_chars")
    cap = ctx.cfg.cap(CAP)
    out, todo, reqs, texts = [], [], [], {}
    for r in reviews:
        j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=ctx.repeat,
                     inputs={**review_inputs(r), "max_comments": cap})
        out.append(j)
        if not (r.sections and r.text.strip()):
            j.null_reason = "empty_review"  # nothing to rate: no call
            continue
        texts[r.review_key] = text = judged_text(r, ctx.cfg.provider, max_chars)
        j.inputs["chars_judged"] = len(text)
        todo.append(j)
        reqs.append(_request(ctx, r.review_key, text, cap))
    for j, res in zip(todo, ctx.call_many(reqs, "constructiveness: comments"), strict=True):
        comments = answer_list(j, res, "comments")
        if comments is None:
            continue
        j.inputs["comments_answered"] = len(comments)
        j.units = _comments(j, comments, texts[j.subject_key], cap)
        if not j.units:
            j.null_reason = "no_comments"
    return out


def _request(ctx: JudgeContext, subject: str, text: str, cap: int | None):
    """The call: under a cap the schema allows `cap` comments and the budget is that answer's; without
    one the schema is unbounded and the budget follows the review's length."""
    cfg = ctx.cfg
    if cap is not None:
        tokens = budget(cap)
    else:
        tokens = max(budget(len(text) // CHARS_PER_COMMENT + 1), cfg.max_output_tokens)
        cfg = dataclasses.replace(cfg, max_output_tokens=tokens)  # params() would cut it to the configured one
    req = judge_request(cfg, JUDGE, STEP, TEMPLATES[0], subject_id=subject, repeat=ctx.repeat, max_tokens=tokens,
                        review_text=text, max_comments=cap)
    return dataclasses.replace(req, response_schema=narrowed_schema(req.response_schema, cap))


def narrowed_schema(schema: dict, cap: int | None) -> dict:
    """The comments schema with at most `cap` comments; no cap: the schema as it is (no maxItems)."""
    if cap is None:
        return schema
    out = copy.deepcopy(schema)
    out["properties"]["comments"]["maxItems"] = cap
    return out


def _comments(j: Judgment, comments: list, text: str, cap: int | None) -> list[dict]:
    if cap is not None and len(comments) > cap:  # a schema-less provider may answer more than asked
        j.drop("over_max_comments", len(comments) - cap)
        comments = comments[:cap]
    units = []
    for index, c in enumerate(comments):
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


# ---- what the bias probes compare (judging.probes): as int_quality_constructiveness_repeats defines them ----
PROBE_TOLERANCE = {"n_comments": 1.0, "mcs": 0.05}


def probe_measures(step: str, units: list[dict], inputs: dict) -> dict[str, float]:
    if step != STEP:
        return {}
    clc = [sum(int(u.get(k) or 0) for k in RATINGS) / 10 for u in units]
    return {"n_comments": float(len(units)), **({"mcs": sum(clc) / len(clc)} if clc else {})}
