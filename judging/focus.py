"""Focus (the Multi-Layered Review paper): what a review talks about. One call per review splits its
strengths and weaknesses into items and labels each with a target (what part of the paper) and an
aspect (what quality) from the study's taxonomy file (judging/taxonomy.py); the marts turn the items
into the four distributions {strengths, weaknesses} × {target, aspect} and KL(P_human ‖ P_system).

Study table `[focus]` (every key optional):
  taxonomy = "focus"        the default file prompts/taxonomies/focus.toml, a bare name of a shipped file,
                            or a path to your own (relative to the working directory). Its labels and
                            definitions are in the prompt and its SHA-256 in every judgment's inputs.
  max_items = 6             items per polarity per review (1..20) [ours, the paper does not say: the local
                            model's answer budget; the source paper's o3-mini labelled every item]
  max_chars                 review characters the judge reads (default settings.judge_max_chars)
  include_variants = false  also label reviews of the experiments' variants (contradiction, hidden text)
                            [ours, the paper does not say: focus is measured on the unmodified papers]
  [focus.judge]             the judge model (provider, model, temperature, max_output_tokens, base_url,
                            repeats); the rest from the study's [judging]

Every review of the study's papers is labelled (human, template reviewers, systems, imported). Subject
key = the review key; step `label`. The label enums are put into the request's JSON schema from the
taxonomy (a grammar-decoding local model can then only answer taxonomy labels); a provider that does not
enforce schemas may answer others: labels are normalized (case, spaces and hyphens → underscores) and an
item still outside the taxonomy is dropped and counted (`unknown_target`, checked first, or
`unknown_aspect`)."""

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.judging import taxonomy as taxonomies
from peerlake.judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from peerlake.judging.reviews import ARGUMENT, JudgedReview
from peerlake.judging.spans import judged_text
from peerlake.judging.taxonomy import Taxonomy

EXPERIMENT = "focus"
JUDGE = "focus"
ORDER = 5  # its place in judging.registry's lists
SECTIONS = ARGUMENT  # a review's strengths and weaknesses (the MLR paper), read as depth reads them
STEP = "label"
TEMPLATES = ("focus_label",)
PARSER_VERSION = "focus-1"
KEYS = frozenset({"judge", "taxonomy", "max_items", "max_chars", "include_variants"})
DEFAULT_REPEATS = 1
POLARITIES = (("strengths", "strength"), ("weaknesses", "weakness"))
DEFAULT_MAX_ITEMS = 6
MAX_ITEMS_LIMIT = 20
# One item ≈ 120 characters of text (~30 tokens) + its keys and two labels (~25 tokens); both lists of
# 6 then take ~660 tokens, which the local model writes in ~25 s. The judge's max_output_tokens caps it.
TOKENS_PER_ITEM = 55


@dataclass(frozen=True)
class Spec:
    taxonomy: Taxonomy
    max_items: int = DEFAULT_MAX_ITEMS
    max_chars: int | None = None
    include_variants: bool = False

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        ref = table.get("taxonomy")
        if ref is not None and (not isinstance(ref, str) or not ref.strip()):
            raise ValueError("focus.taxonomy: must be a file path or the name of a shipped taxonomy (e.g. \"focus\")")
        try:
            tax = taxonomies.load(ref.strip() if ref else None)
        except ValueError as exc:
            raise ValueError(f"focus.taxonomy: {exc}") from None
        max_items = table.get("max_items", DEFAULT_MAX_ITEMS)
        if isinstance(max_items, bool) or not isinstance(max_items, int) or not 1 <= max_items <= MAX_ITEMS_LIMIT:
            raise ValueError(f"focus.max_items: {max_items!r} is not an integer 1..{MAX_ITEMS_LIMIT}; give the most "
                             "items per polarity to label (default 6)")
        max_chars = table.get("max_chars")
        if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 200):
            raise ValueError(f"focus.max_chars: {max_chars!r} is not an integer ≥ 200; give the review characters "
                             "the judge reads, or leave it unset")
        include = table.get("include_variants", False)
        if not isinstance(include, bool):
            raise ValueError(f"focus.include_variants: {include!r} is not true or false")
        return cls(taxonomy=tax, max_items=max_items, max_chars=max_chars, include_variants=include)


def response_schema(base: dict, spec: Spec) -> dict:
    """The template's schema with the taxonomy's labels as enums and max_items as maxItems."""
    schema = copy.deepcopy(base)
    for key, _ in POLARITIES:
        arr = schema["properties"][key]
        arr["maxItems"] = spec.max_items
        props = arr["items"]["properties"]
        props["target"] = {"type": "string", "enum": list(spec.taxonomy.labels("target"))}
        props["aspect"] = {"type": "string", "enum": list(spec.taxonomy.labels("aspect"))}
    return schema


def variant_ids(log) -> set[str]:
    """The paper ids of every built experiment variant in the lake."""
    return {ev.variant_id for ev in log.iter_events("paper_variant") if ev.built}


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """One focus judgment per review and repeat (0..ctx.cfg.repeats-1); each repeat's calls in one batch."""
    reviews = [r.for_judge(JUDGE) for r in reviews]  # the argument it read before (judging/reviews.py)
    if not spec.include_variants:
        variants = variant_ids(ctx.log)
        reviews = [r for r in reviews if r.paper_id not in variants]
    out = []
    for repeat in range(ctx.cfg.repeats):
        out += _one_repeat(ctx, reviews, spec, repeat)
    return out


def _inputs(r: JudgedReview, spec: Spec) -> dict:
    tax = spec.taxonomy
    # the label sets travel with each judgment: the marts smooth over the taxonomy's labels, not only
    # the ones that occur, and tell judgments made under two taxonomies apart
    return {**review_inputs(r), "taxonomy": tax.name, "taxonomy_sha256": tax.sha256,
            "targets": list(tax.labels("target")), "aspects": list(tax.labels("aspect")),
            "max_items": spec.max_items}


def _one_repeat(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec, repeat: int) -> list[Judgment]:
    out, todo, reqs = [], [], []
    for r in reviews:
        j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=repeat,
                     inputs=_inputs(r, spec))
        out.append(j)
        if not (r.sections and r.text.strip()):
            j.null_reason = "empty_review"  # nothing to label: no call
            continue
        text = judged_text(r, ctx.cfg.provider, spec.max_chars)
        j.inputs["chars_judged"] = len(text)
        req = judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=r.review_key, repeat=repeat,
                            max_tokens=2 * spec.max_items * TOKENS_PER_ITEM + 20, review_text=text,
                            targets=spec.taxonomy.targets, aspects=spec.taxonomy.aspects, max_items=spec.max_items)
        todo.append(j)
        reqs.append(_with_schema(req, spec))
    for j, res in zip(todo, ctx.call_many(reqs, f"focus: label (repeat {repeat})"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        lists = [doc.get(key) if doc is not None else None for key, _ in POLARITIES]
        if not all(isinstance(v, list) for v in lists):
            j.null_reason = "unparseable:label"
            continue
        for (_, polarity), items in zip(POLARITIES, lists, strict=True):
            j.units += _items(j, polarity, items, spec)
        if not j.units:
            j.null_reason = "no_items"
    return out


def _with_schema(req, spec: Spec):
    return dataclasses.replace(req, response_schema=response_schema(req.response_schema, spec))


def _items(j: Judgment, polarity: str, items: list, spec: Spec) -> list[dict]:
    """The kept items of one polarity; item_index = the item's 0-based position in the judge's list of
    that polarity, so a gap shows where one was dropped."""
    if len(items) > spec.max_items:  # a provider that ignores the schema may answer more
        j.drop("over_max_items", len(items) - spec.max_items)
    units = []
    for index, item in enumerate(items[:spec.max_items]):
        text = item.get("text") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip():
            j.drop("no_text")
            continue
        target = spec.taxonomy.normalize("target", item.get("target"))
        aspect = spec.taxonomy.normalize("aspect", item.get("aspect"))
        if target is None:
            j.drop("unknown_target")
            continue
        if aspect is None:
            j.drop("unknown_aspect")
            continue
        units.append({"polarity": polarity, "item_index": index, "text": " ".join(text.split()),
                      "target": target, "aspect": aspect})
    return units


def identity_extra(spec: Spec) -> str:
    """What the judge's identity adds to its templates and model: the taxonomy file's hash, so another
    taxonomy is another judge configuration (studies.experiments mixes it into judge_config)."""
    return f"taxonomy:{spec.taxonomy.sha256}"
