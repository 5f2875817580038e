"""The contradiction detection judge (the Multi-Layered Review paper): does a review identify the contradiction an
edit of one paragraph inserted into the paper? One call per (item, review, repeat) with the original
paragraph, the modified one and the whole review (cut to the judge's budget); step `identify`.

Subjects are `<variant_id>|<review_key>`:
  - detection: every review of a built contradiction variant (judging.benchmark made it) in the study;
  - audit (specificity, as the paper reports it): every non-human review of the variant's BASE paper, judged against
    each of that paper's items; the right answer is always no. The judgment's paper_id (the review's
    paper: the variant or its base) tells the two apart, and the unit says `role`.
The marts (int_contradiction_detections → contradiction_detection, contradiction_judge_audit) compute
every number from the units: any-of-k ensembles, accuracy per distance, Wilson intervals.

Defaults where the source paper is silent (keys of the study's [contradictions] table):
  - repeats = 10 (the Multi-Layered Review paper) under [contradictions.judge]; they differ only at a temperature > 0
    (a seed alone does not change a greedy answer) (temperature: the study's judging default; the paper does not say);
  - audit = true: the specificity audit runs [ours, the paper does not say: the source paper ran it once, on 26 papers];
  - human reviews are not audited (they are not the systems under test) (ours: the paper does not say);
  - detection_review_chars: settings.judge_max_chars(provider) (6,000 on local; the source paper's o3 read
    whole reviews); detection_paragraph_chars: 1,500 each on local, 20,000 elsewhere [default, not in
    source]. (The builder's own max_paragraph_chars bounds the rewrite, not this judge.)
"""

from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import judged_text
from peerlake.judging.variants import built_variants, variant_subjects

EXPERIMENT = "contradictions"
JUDGE = "detection"
ORDER = 1  # its place in judging.registry's lists
SECTIONS = None  # "the full review text" (the Multi-Layered Review paper)
BUILDER = "peerlake.judging.benchmark"  # makes the manuscripts this experiment judges
STEP = "identify"
TEMPLATES = ("detection_judge",)
PARSER_VERSION = "detection-1"
KEYS = frozenset({"judge", "audit", "detection_review_chars", "detection_paragraph_chars"})
DEFAULT_REPEATS = 10  # the Multi-Layered Review paper: every judgment repeated 10 times
# The schema's longest answer: a 300-character rationale (~80 tokens) + keys; 200 leaves room and
# bounds a stall at ~13 s on the local model (~15 tokens/s).
MAX_TOKENS = 200
LOCAL_PARAGRAPH_CHARS = 1500  # two paragraphs ≈ 750 tokens beside a 6,000-character review in 4,096
HOSTED_PARAGRAPH_CHARS = 20000


@dataclass(frozen=True)
class Spec:
    audit: bool = True
    detection_review_chars: int | None = None  # None: settings.judge_max_chars(provider)
    detection_paragraph_chars: int | None = None  # None: LOCAL_PARAGRAPH_CHARS on local, else HOSTED_...

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        """The detection keys of a study's [contradictions] table; other keys are the builder's."""
        audit = table.get("audit", True)
        if not isinstance(audit, bool):
            raise ValueError(f"{EXPERIMENT}.audit: must be true or false, got {audit!r}; "
                             "write audit = false to skip the specificity audit")
        return cls(audit=audit, detection_review_chars=_positive(table, "detection_review_chars"),
                   detection_paragraph_chars=_positive(table, "detection_paragraph_chars"))

    def paragraph_limit(self, provider: str) -> int:
        if self.detection_paragraph_chars is not None:
            return self.detection_paragraph_chars
        return LOCAL_PARAGRAPH_CHARS if provider == "local" else HOSTED_PARAGRAPH_CHARS


def _positive(table: dict, key: str) -> int | None:
    v = table.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"{EXPERIMENT}.{key}: must be a positive whole number of characters, got {v!r}; "
                         "leave it out for the provider's default")
    return v


@dataclass(frozen=True)
class Item:
    """A built contradiction variant, as the judge needs it (details_json keys: judging.benchmark)."""

    variant_id: str
    base_paper_id: str
    item_id: str | None
    original: str | None
    modified: str | None


def items(log) -> dict[str, Item]:
    """Built contradiction variants by variant id (the newest event of each)."""
    return {vid: Item(variant_id=vid, base_paper_id=ev.base_paper_id, item_id=_text(d.get("item_id")),
                      original=_text(d.get("original_paragraph")), modified=_text(d.get("modified_paragraph")))
            for vid, (ev, d) in built_variants(log, "contradiction").items()}


def subjects(found: dict[str, Item], reviews: Sequence[JudgedReview],
             audit: bool) -> list[tuple[Item, JudgedReview, str]]:
    """(item, review, role) for every item whose variant the study reviewed: its reviews ("detection"),
    and with `audit` the non-human reviews of its base paper ("audit")."""
    return variant_subjects(found, reviews, variant_role="detection", base_role="audit" if audit else None)


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """Every (item, review) subject × repeats 0..ctx.cfg.repeats-1, the calls batched in one go."""
    reviews = [r.for_judge(JUDGE) for r in reviews]  # the MLR paper: "the full review text" (every section)
    para_limit = spec.paragraph_limit(ctx.cfg.provider)
    out, todo, reqs = [], [], []
    for item, review, role in subjects(items(ctx.log), reviews, spec.audit):
        text = judged_text(review, ctx.cfg.provider, spec.detection_review_chars) if review.sections else ""
        for repeat in range(ctx.cfg.repeats):
            j = Judgment(judge=JUDGE, step=STEP, subject_key=f"{item.variant_id}|{review.review_key}",
                         paper_id=review.paper_id, repeat=repeat,
                         inputs={**review_inputs(review), "variant_id": item.variant_id, "item_id": item.item_id,
                                 "role": role})
            out.append(j)
            if not (review.sections and review.text.strip()):
                j.null_reason = "empty_review"  # nothing to read: no call (the marts count it as not identified)
                continue
            if item.original is None or item.modified is None:
                j.null_reason = "no_item_text"  # a variant event without its paragraphs: nothing to compare
                continue
            j.inputs["chars_judged"] = len(text)
            todo.append((j, item, review, role))
            reqs.append(judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=j.subject_key, repeat=repeat,
                                      max_tokens=MAX_TOKENS, review_text=text,
                                      original_paragraph=item.original[:para_limit],
                                      modified_paragraph=item.modified[:para_limit]))
    for (j, item, review, role), res in zip(todo, ctx.call_many(reqs, "detection: identify"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        identified = doc.get("identified") if doc is not None else None
        if not isinstance(identified, bool):  # "yes", 1, null: not the schema's answer
            j.null_reason = f"unparseable:{STEP}"
            continue
        rationale = doc.get("rationale")
        j.units = [{"variant_id": item.variant_id, "review_key": review.review_key, "role": role,
                    "identified": identified,
                    "rationale": rationale.strip() if isinstance(rationale, str) else ""}]
    return out


def _text(v) -> str | None:
    return v if isinstance(v, str) and v.strip() else None
