"""The injection-mention judge (the Multi-Layered Review paper): does a review point out the text hidden in its paper?
One call per (variant, review, repeat) with the injected text and the review (cut to the judge's
budget); step `mention`. The source paper counts it by hand ("MLR pointed out the injected text in 8 of 50").

Subjects are `<variant_id>|<review_key>`:
  - injected: every review of a built hidden_text variant (ingest.hidden_text made it) in the study;
  - control (with `control = true`): every non-human review of the variant's clean BASE paper, judged
    against the same text; the right answer is always no, so a yes is the judge's false alarm.
The judgment's paper_id (the review's paper) and the unit's `role` tell them apart. The marts
(int_hidden_text_mentions → hidden_text_effects) count the reviews judged to mention it.

Defaults where the source paper is silent (keys of the study's [hidden_text] table):
  - repeats = 1 under [hidden_text.judge] (ours: the paper does not say);
  - control = false (ours: the paper does not say);
  - review_chars: settings.judge_max_chars(provider) (6,000 on local) (ours: the paper does not say).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import judged_text
from peerlake.judging.variants import built_variants, variant_subjects

EXPERIMENT = "hidden_text"
JUDGE = "injection"
ORDER = 2  # its place in judging.registry's lists
SECTIONS = None  # whether the review points out the hidden text anywhere (the Multi-Layered Review paper)
BUILDER = "peerlake.ingest.hidden_text"  # makes the manuscripts this experiment judges
STEP = "mention"
TEMPLATES = ("injection_judge",)
PARSER_VERSION = "injection-1"
KEYS = frozenset({"judge", "control", "review_chars"})
DEFAULT_REPEATS = 1
# The schema's longest answer: a 300-character rationale (~80 tokens) + keys; 200 bounds a stall at
# ~13 s on the local model (~15 tokens/s).
MAX_TOKENS = 200
INJECTED_CHARS = 1500  # the injected text as the judge sees it (the default is ~300 characters)


@dataclass(frozen=True)
class Spec:
    control: bool = False
    review_chars: int | None = None  # None: settings.judge_max_chars(provider)

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        """The judge's keys of a study's [hidden_text] table; the others are the injector's."""
        control = table.get("control", False)
        if not isinstance(control, bool):
            raise ValueError(f"{EXPERIMENT}.control: must be true or false, got {control!r}; write control = true "
                             "to also judge the clean papers' reviews (the judge's false alarms)")
        chars = table.get("review_chars")
        if chars is not None and (isinstance(chars, bool) or not isinstance(chars, int) or chars <= 0):
            raise ValueError(f"{EXPERIMENT}.review_chars: must be a positive whole number of characters, got "
                             f"{chars!r}; leave it out for the provider's default")
        return cls(control=control, review_chars=chars)


@dataclass(frozen=True)
class Injection:
    """A built hidden_text variant, as the judge needs it (details_json keys: ingest.hidden_text)."""

    variant_id: str
    base_paper_id: str
    method: str | None
    text: str | None


def injections(log) -> dict[str, Injection]:
    """Built hidden_text variants by variant id (the newest event of each)."""
    out = {}
    for vid, (ev, d) in built_variants(log, "hidden_text").items():
        text, method = d.get("text"), d.get("method")
        out[vid] = Injection(variant_id=vid, base_paper_id=ev.base_paper_id,
                             method=method if isinstance(method, str) else None,
                             text=text if isinstance(text, str) and text.strip() else None)
    return out


def subjects(found: dict[str, Injection], reviews: Sequence[JudgedReview],
             control: bool) -> list[tuple[Injection, JudgedReview, str]]:
    """(injection, review, role) for every variant the study reviewed: its reviews ("injected"), and
    with `control` the non-human reviews of its base paper ("control")."""
    return variant_subjects(found, reviews, variant_role="injected", base_role="control" if control else None)


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """Every (variant, review) subject × repeats 0..ctx.cfg.repeats-1, the calls batched in one go."""
    # the Multi-Layered Review paper: whether the review points out the hidden text anywhere: every section
    reviews = [r.for_judge(JUDGE) for r in reviews]
    out, todo, reqs = [], [], []
    for inj, review, role in subjects(injections(ctx.log), reviews, spec.control):
        text = judged_text(review, ctx.cfg.provider, spec.review_chars) if review.sections else ""
        for repeat in range(ctx.cfg.repeats):
            j = Judgment(judge=JUDGE, step=STEP, subject_key=f"{inj.variant_id}|{review.review_key}",
                         paper_id=review.paper_id, repeat=repeat,
                         inputs={**review_inputs(review), "variant_id": inj.variant_id, "method": inj.method,
                                 "role": role})
            out.append(j)
            if not (review.sections and review.text.strip()):
                j.null_reason = "empty_review"  # nothing to read: no call
                continue
            if inj.text is None:
                j.null_reason = "no_injected_text"  # a variant event without its text: nothing to look for
                continue
            j.inputs["chars_judged"] = len(text)
            todo.append((j, inj, review, role))
            reqs.append(judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=j.subject_key, repeat=repeat,
                                      max_tokens=MAX_TOKENS, review_text=text,
                                      injected_text=inj.text[:INJECTED_CHARS]))
    for (j, inj, review, role), res in zip(todo, ctx.call_many(reqs, "injection: mention"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        mentions = doc.get("mentions_injection") if doc is not None else None
        if not isinstance(mentions, bool):  # "yes", 1, null: not the schema's answer
            j.null_reason = f"unparseable:{STEP}"
            continue
        rationale = doc.get("rationale")
        j.units = [{"variant_id": inj.variant_id, "review_key": review.review_key, "role": role,
                    "method": inj.method, "mentions_injection": mentions,
                    "rationale": rationale.strip() if isinstance(rationale, str) else ""}]
    return out
