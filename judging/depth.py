"""Depth of analysis (PRISM §1): a review's argumentative units, each a claim or a premise with an
aspect, and each premise's grounding 0/1/2. One judgment per review, step `units`:

  units     judge_depth_units     verbatim units; one not found in the review is dropped (not_verbatim)
  labels    judge_depth_labels    role + aspect per unit NUMBER; a unit left unlabelled is dropped
  grounding judge_depth_grounding grounding per premise NUMBER; skipped when there are no premises

Labels and grounding join by number, not by text (PRISM joins by exact text and loses what a model
re-wrote). A premise the grounder skipped keeps grounding null: it counts in R, not in S, as PRISM.
Besides not_verbatim and unlabelled, `dropped` counts: heading (a unit that was only a section
heading; a heading at a unit's start is cut off), duplicate (the same words at the same place),
cut_rejoined (a string the schema's maxLength closed mid-sentence, joined to its continuation).
`unit_index` is the unit's 0-based position among the verbatim units (the labeller saw it as number
unit_index + 1), so gaps show where a unit was dropped unlabelled. dbt computes R, S and DoA.

Settings (JudgeConfig): the `depth_units` cap (judging/caps.py: 12 on the embedded model, none
on a hosted one, as PRISM, which segments every unit) and `depth_taxonomy` (judging/depth_taxonomy.py:
the aspect labels and the grounding scale the prompts define, default prism-reference). A cap cuts the
answer's tail: `over_max_units` counts the units answered beyond it; inputs_json keeps `max_units` (the
cap) and `units_answered`, and an answer that filled the cap may have left units unsaid (a
grammar-decoding model stops at the schema's maxItems). The labeller and the grounder read the review
text beside the numbered units, as in PRISM's reference code.
"""

import copy
import dataclasses
from collections.abc import Sequence

from peerlake.judging import depth_taxonomy
from peerlake.judging.base import JudgeContext, Judgment, ReviewMetric, answer, budgeted, judge_request, review_inputs
from peerlake.judging.depth_taxonomy import DepthTaxonomy
from peerlake.judging.reviews import ARGUMENT, JudgedReview
from peerlake.judging.spans import field_at, heading_end, judged_text, verbatim_span

JUDGE = "depth"
ORDER = 1  # PRISM's order of dimensions: depth, novelty, flaws, constructiveness
SECTIONS = ARGUMENT  # PRISM reads Summary / Strengths / Weaknesses (depth_of_analysis run_human.py L30-38)
STEP = "units"
REVIEW_STEP = STEP  # the step with one judgment per judged review (benchmarks/judge_cost.py counts them)
TEMPLATES = ("judge_depth_units", "judge_depth_labels", "judge_depth_grounding")
PARSER_VERSION = "depth-2"  # depth-2: the cap a setting, aspects from the taxonomy, the review text as context
CAP = "depth_units"
METRICS = (ReviewMetric("doa", "Depth: DoA", headline=True), ReviewMetric("premise_ratio", "Depth: premise ratio"),
           ReviewMetric("grounding_norm", "Depth: grounding"))
CARD_SCORE = "doa"  # the score a judge card retests (int_judge_card_score_repeats)
ROLES = ("claim", "premise")
# judge_depth_units' maxLength: a string of exactly this length may have been closed by the grammar
# mid-sentence; a longer one was not (its provider ignored maxLength), and is a unit of its own
MAX_UNIT_CHARS = 200
NUMBER = {"labels": "unit", "grounding": "premise"}  # the key that numbers a step's answers

# Answer tokens (max_tokens). Under a cap each budget is the longest answer the narrowed schema allows,
# so a grammar-constrained model never returns cut-off JSON, and no more (the local model writes
# ~15 tokens/s on 2 cores); cap 12 gives the budgets the embedded model always had (700 / 300 / 200):
#   units     a unit copies ≤ 200 characters (~4 per token) + its quotes and comma ≈ 57 tokens; + 20
#   labels    {"unit": 12, "role": "premise", "aspect": "contribution"} ≈ 24 tokens; + 12
#   grounding {"premise": 12, "score": 2} ≈ 16 tokens; + 8
# Without a cap (PRISM: every unit) the units answer is as long as the review: at most its characters
# copied (counted at 3 per token, for markup and non-English text) plus ~4 tokens of JSON per unit of
# ≥ 40 characters. A long review then needs far more than the default 700-token limit. So the judge's
# max_output_tokens is the ceiling of each budget only on the embedded model (its 4k context bounds
# every answer); on a hosted model it is the floor (raise it for a reasoning model), never a cut: a
# hosted model bills the tokens it writes, not the budget.
TOKENS = {"units": (20, 57), "labels": (12, 24), "grounding": (8, 16)}  # (fixed, per item)


def budget(step: str, n: int) -> int:
    """Answer tokens for n items (units answered, units labelled, premises graded)."""
    fixed, per_item = TOKENS[step]
    return fixed + per_item * n


def uncapped_units_budget(text: str) -> int:
    """Answer tokens for every unit of `text`: all of it copied, plus JSON per unit."""
    return 20 + len(text) // 3 + 4 * (len(text) // 40 + 1)


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """One depth judgment per review for ctx.repeat; each step batched over all reviews."""
    reviews = [r.for_judge(JUDGE) for r in reviews]  # summary, strengths, weaknesses (judging/reviews.py)
    max_chars = options.get("max_chars")
    cap = ctx.cfg.cap(CAP)
    tax = depth_taxonomy.load(ctx.cfg.depth_taxonomy)
    out, texts = [], {}
    for r in reviews:
        j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=ctx.repeat,
                     inputs=_inputs(r, tax, cap))
        if r.sections and r.text.strip():
            texts[r.review_key] = judged_text(r, ctx.cfg.provider, max_chars)
            j.inputs["chars_judged"] = len(texts[r.review_key])
        else:
            j.null_reason = "empty_review"  # nothing to split: no call
        out.append(j)
    by_key = {r.review_key: r for r in reviews}

    def request(j: Judgment, step: str, n: int | None, **variables):
        """The step's request; n = the items the answer numbers (None for units). A cap narrows the
        schema to the items asked; without one the schema stays unbounded and the units budget follows
        the review's length."""
        text = texts[j.subject_key]
        if n is not None:
            need = budget(step, n)
        else:
            need = budget(step, cap) if cap is not None else uncapped_units_budget(text)
        cfg, tokens = budgeted(ctx.cfg, need)
        req = judge_request(cfg, JUDGE, step, f"judge_depth_{step}", subject_id=j.subject_key,
                            repeat=ctx.repeat, max_tokens=tokens, review_text=text, **variables)
        return dataclasses.replace(req, response_schema=response_schema(req.response_schema, step, tax, cap, n))

    # 1. units
    todo = [j for j in out if j.null_reason is None]
    results = ctx.call_many([request(j, "units", None, max_units=cap) for j in todo], "depth: units")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        spans = _list(answer(res), "units")
        if spans is None:
            j.null_reason = "unparseable:units"
            continue
        j.units = _verbatim_units(j, spans, by_key[j.subject_key], texts[j.subject_key], cap)
        if not j.units:
            j.null_reason = "no_units"

    # 2. labels
    todo = [j for j in out if j.null_reason is None and j.failed_call is None]
    results = ctx.call_many([request(j, "labels", len(j.units), units=_shown(j.units), aspects=tax.aspects)
                             for j in todo], "depth: labels")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        labels = _list(answer(res), "labels")
        if labels is None:
            j.null_reason = "unparseable:labels"
            continue
        _apply_labels(j, labels, tax)
        if not j.units:
            j.null_reason = "no_units"

    # 3. grounding, only for reviews with premises (a claim's grounding stays null)
    todo = [j for j in out if j.null_reason is None and j.failed_call is None and _premises(j)]
    results = ctx.call_many([request(j, "grounding", len(_premises(j)), premises=_shown(_premises(j)),
                                     grounding=tax.grounding) for j in todo], "depth: grounding")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        scores = _list(answer(res), "grounding")
        if scores is None:
            j.null_reason = "unparseable:grounding"
            continue
        _apply_grounding(j, scores)
    return out


def response_schema(base: dict, step: str, tax: DepthTaxonomy, cap: int | None, n: int | None) -> dict:
    """A step's schema for one request: the taxonomy's aspects as the aspect enum and, only under a
    cap, maxItems (the cap for units; the n items asked for labels and grounding) and their numbers
    1..n as an enum (llama.cpp ignores minimum). Without a cap nothing bounds the list, as PRISM."""
    schema = copy.deepcopy(base)
    arr = schema["properties"][step]
    if step == "labels":
        arr["items"]["properties"]["aspect"] = {"type": "string", "enum": list(tax.labels)}
    if cap is not None:
        arr["maxItems"] = cap if n is None else n
        if n is not None:
            arr["items"]["properties"][NUMBER[step]] = {"type": "integer", "enum": list(range(1, n + 1))}
    return schema


def _inputs(r: JudgedReview, tax: DepthTaxonomy, cap: int | None) -> dict:
    # the aspect list travels with each judgment: the marts give every aspect of the taxonomy a share
    # (0 when no unit has it) and tell judgments made under two taxonomies apart
    return {**review_inputs(r), "depth_taxonomy": tax.name, "depth_taxonomy_sha256": tax.sha256,
            "aspects": list(tax.labels), "max_units": cap}


def _failed(j: Judgment, res) -> bool:
    """A call that raised (already an error event) is no answer: the judgment is not recorded."""
    if isinstance(res, BaseException):
        j.failed_call = f"{type(res).__name__}: {res}"
        return True
    j.results.append(res)
    return False


def _list(doc: dict | None, key: str) -> list | None:
    value = doc.get(key) if doc is not None else None
    return value if isinstance(value, list) else None


def _verbatim_units(j: Judgment, spans: list, review: JudgedReview, text: str, cap: int | None) -> list[dict]:
    units, seen, cursor, cut = [], set(), 0, False
    for span in spans if cap is None else spans[:cap]:
        hit = verbatim_span(span, text, cursor) if isinstance(span, str) else None
        if hit is None:
            j.drop("not_verbatim")
            continue
        start, words = hit
        if (body := heading_end(review, start)) is not None:  # "Weaknesses:\nThe evaluation ..." -> "The ..."
            end, rest = start + len(words), text[body:start + len(words)]
            start = body + len(rest) - len(rest.lstrip())
            words = text[start:end]
            if not words:
                j.drop("heading")
                continue
        if cut and units and start >= cursor and not text[cursor:start].strip():
            # the grammar closed the previous string at maxLength mid-sentence and the model went on in
            # the next one: the two are one unit of the review
            units[-1]["text"] = text[units[-1]["start"]:start + len(words)]
            cursor, cut = start + len(words), _grammar_cut(span)
            j.drop("cut_rejoined")
            continue
        if (start, words) in seen:  # the same words at the same place: one unit, not two
            j.drop("duplicate")
            continue
        seen.add((start, words))
        cursor, cut = start + len(words), _grammar_cut(span)
        units.append({"unit_index": len(units), "text": words, "start": start, "field": field_at(review, start),
                      "role": None, "aspect": None, "grounding": None})
    # what the model answered, before the cap: an answer that fills the cap may have left units unsaid
    # (a grammar-decoding model stops at the schema's maxItems, so nothing is over it to count)
    j.inputs["units_answered"] = len(spans)
    if cap is not None and len(spans) > cap:  # a provider that ignores the schema may answer more: cut
        j.drop("over_max_units", len(spans) - cap)
    return units


def _grammar_cut(span: str) -> bool:
    return len(span) == MAX_UNIT_CHARS


def _number(item: dict, key: str, n: int) -> int | None:
    """A 1-based number the model gave, as a 0-based index, if it names one of the n items."""
    v = item.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not v.is_integer()) \
            or not 1 <= v <= n:
        return None
    return int(v) - 1


def _apply_labels(j: Judgment, labels: list, tax: DepthTaxonomy) -> None:
    got: dict[int, tuple[str, str]] = {}
    for item in labels:
        if not isinstance(item, dict) or (k := _number(item, "unit", len(j.units))) is None or k in got:
            continue  # an unknown or repeated number labels nothing new: the first label wins
        role, aspect = str(item.get("role") or "").strip().lower(), tax.normalize(item.get("aspect"))
        if role in ROLES and aspect is not None:
            got[k] = (role, aspect)
    kept = []
    for k, u in enumerate(j.units):
        if k not in got:
            j.drop("unlabelled")
            continue
        u["role"], u["aspect"] = got[k]
        kept.append(u)
    j.units = kept


def _shown(units: list[dict]) -> list[str]:
    """Units on one line each, so the numbered list stays a list (a unit may span a line break)."""
    return [" ".join(u["text"].split()) for u in units]


def _premises(j: Judgment) -> list[dict]:
    return [u for u in j.units if u["role"] == "premise"]


def _apply_grounding(j: Judgment, scores: list) -> None:
    premises = _premises(j)
    for item in scores:
        if not isinstance(item, dict) or (k := _number(item, "premise", len(premises))) is None:
            continue
        g = item.get("score")
        if premises[k]["grounding"] is None and not isinstance(g, bool) and g in (0, 1, 2):
            premises[k]["grounding"] = int(g)  # the first score for a premise wins


# ---- what the bias probes compare (judging.probes): as int_quality_depth_repeats defines them per repeat ----
PROBE_TOLERANCE = {"n_units": 1.0, "premise_ratio": 0.05}


def probe_measures(step: str, units: list[dict], inputs: dict) -> dict[str, float]:
    if step != STEP:
        return {}
    premises = sum(1 for u in units if u.get("role") == "premise")
    return {"n_units": float(len(units)), **({"premise_ratio": premises / len(units)} if units else {})}
