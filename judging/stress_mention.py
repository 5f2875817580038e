"""The stress suite's mention judge (issue #49): does a review of a soundness-edited paper mention the
problem the edit made (a removed table or ablation, an over-claiming abstract, a significance claim on
overlapping intervals)? The contradiction detection judge's machinery (judging.detection: the built
variants of a kind, their reviews in the study, one batched call per subject and repeat), asked about
the one sentence each soundness variant's details name as its `problem`.

One judgment per (review of a built soundness variant, repeat): subject_key = the review's key, step
`mention`; its unit {"variant_id", "edit", "review_key", "mentions": bool, "quote": str | null}. A quote
that is not the review's own words (judging.base.find_verbatim) is dropped (null, counted as
`quote_not_verbatim`); the answer's `mentions` stands. The marts (the stress card) count the mentions.

Defaults where no source decides (keys of the study's [stress] table; ours):
  - repeats = 1 under [stress.judge];
  - review_chars: settings.judge_max_chars(provider) (6,000 on local).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.judging.base import JudgeContext, Judgment, answer, find_verbatim, judge_request, review_inputs
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import judged_text
from peerlake.judging.variants import built_variants, variant_subjects

EXPERIMENT = "stress"
JUDGE = "stress_mention"
ORDER = 6  # its place in judging.registry's lists: after focus
SECTIONS = None  # a review may name the problem anywhere
BUILDER = "peerlake.judging.stress"  # makes the manuscripts this experiment judges
STEP = "mention"
TEMPLATES = ("stress_mention_judge",)
PARSER_VERSION = "stress-mention-1"
KEYS = frozenset({"judge", "review_chars"})
DEFAULT_REPEATS = 1
# The schema's longest answer: a 300-character quote (~80 tokens) + keys; 200 bounds a stall at ~13 s
# on the local model (~15 tokens/s), as the detection judge's.
MAX_TOKENS = 200
PROBLEM_CHARS = 600


@dataclass(frozen=True)
class Spec:
    review_chars: int | None = None  # None: settings.judge_max_chars(provider)

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        """The judge's keys of a study's [stress] table; the others are the builder's (judging.stress.spec)."""
        chars = table.get("review_chars")
        if chars is not None and (isinstance(chars, bool) or not isinstance(chars, int) or chars <= 0):
            raise ValueError(f"{EXPERIMENT}.review_chars: must be a positive whole number of characters, got "
                             f"{chars!r}; leave it out for the provider's default")
        return cls(review_chars=chars)


@dataclass(frozen=True)
class Problem:
    """A built soundness variant of the stress suite, as the judge needs it (details: judging.stress.build)."""

    variant_id: str
    base_paper_id: str
    edit: str | None
    problem: str | None


def problems(log) -> dict[str, Problem]:
    """Built soundness variants of the stress suite by variant id (the newest event of each)."""
    out = {}
    for vid, (ev, d) in built_variants(log, "stress").items():
        if d.get("family") != "soundness":
            continue
        edit, problem = d.get("edit"), d.get("problem")
        out[vid] = Problem(variant_id=vid, base_paper_id=ev.base_paper_id, edit=edit if isinstance(edit, str) else None,
                           problem=problem if isinstance(problem, str) and problem.strip() else None)
    return out


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """Every review of a soundness variant × repeats 0..ctx.cfg.repeats-1, the calls batched in one go."""
    reviews = [r.for_judge(JUDGE) for r in reviews]
    out, todo, reqs = [], [], []
    for item, review, _ in variant_subjects(problems(ctx.log), reviews, variant_role="edited", base_role=None):
        text = judged_text(review, ctx.cfg.provider, spec.review_chars) if review.sections else ""
        for repeat in range(ctx.cfg.repeats):
            j = Judgment(judge=JUDGE, step=STEP, subject_key=review.review_key, paper_id=review.paper_id,
                         repeat=repeat, inputs={**review_inputs(review), "variant_id": item.variant_id,
                                                "edit": item.edit})
            out.append(j)
            if not (review.sections and review.text.strip()):
                j.null_reason = "empty_review"  # nothing to read: no call
                continue
            if item.problem is None:
                j.null_reason = "no_problem_text"  # a variant event without its problem: nothing to ask about
                continue
            j.inputs["chars_judged"] = len(text)
            todo.append((j, item, review, text))
            reqs.append(judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=review.review_key,
                                      repeat=repeat, max_tokens=MAX_TOKENS, review_text=text,
                                      problem=item.problem[:PROBLEM_CHARS]))
    for (j, item, review, text), res in zip(todo, ctx.call_many(reqs, "stress: mention"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        mentions = doc.get("mentions") if doc is not None else None
        if not isinstance(mentions, bool):  # "yes", 1, null: not the schema's answer
            j.null_reason = f"unparseable:{STEP}"
            continue
        quote = doc.get("quote")
        quote = quote.strip() if isinstance(quote, str) and quote.strip() else None
        if quote is not None and find_verbatim(quote, text) is None:
            j.drop("quote_not_verbatim")
            quote = None
        j.units = [{"variant_id": item.variant_id, "edit": item.edit, "review_key": review.review_key,
                    "mentions": mentions, "quote": quote}]
    return out
