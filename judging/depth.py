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
"""

from collections.abc import Sequence

from judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from judging.reviews import JudgedReview
from judging.spans import field_at, heading_end, judged_text, verbatim_span

JUDGE = "depth"
STEP = "units"
TEMPLATES = ("judge_depth_units", "judge_depth_labels", "judge_depth_grounding")
PARSER_VERSION = "depth-1"
ROLES = ("claim", "premise")
ASPECTS = ("soundness", "clarity", "contribution", "other")
MAX_UNITS = 12  # the schemas' maxItems and number enums
MAX_UNIT_CHARS = 200  # judge_depth_units' maxLength: a unit this long may have been cut by the grammar

# max_tokens per step: each is the longest answer its schema allows, so a grammar-constrained model
# never returns cut-off JSON, and no more (the local model writes ~15 tokens/s on 2 cores):
#   units     12 units x 200 chars = 2,400 chars of copied text (~4 chars/token) + JSON punctuation ≈ 650
#   labels    12 x {"unit": 12, "role": "premise", "aspect": "contribution"} ≈ 12 x 20 tokens ≈ 240
#   grounding 12 x {"premise": 12, "score": 2} ≈ 12 x 12 tokens ≈ 150
MAX_TOKENS = {"units": 700, "labels": 300, "grounding": 200}


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """One depth judgment per review for ctx.repeat; each step batched over all reviews."""
    max_chars = options.get("max_chars")
    out, texts = [], {}
    for r in reviews:
        j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=ctx.repeat,
                     inputs=review_inputs(r))
        if r.sections and r.text.strip():
            texts[r.review_key] = judged_text(r, ctx.cfg.provider, max_chars)
            j.inputs["chars_judged"] = len(texts[r.review_key])
        else:
            j.null_reason = "empty_review"  # nothing to split: no call
        out.append(j)
    by_key = {r.review_key: r for r in reviews}

    def request(j: Judgment, step: str, **variables):
        return judge_request(ctx.cfg, JUDGE, step, f"judge_depth_{step}", subject_id=j.subject_key,
                             repeat=ctx.repeat, max_tokens=MAX_TOKENS[step], **variables)

    # 1. units
    todo = [j for j in out if j.null_reason is None]
    results = ctx.call_many([request(j, "units", review_text=texts[j.subject_key]) for j in todo],
                            "depth: units")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        spans = _list(answer(res), "units")
        if spans is None:
            j.null_reason = "unparseable:units"
            continue
        j.units = _verbatim_units(j, spans, by_key[j.subject_key], texts[j.subject_key])
        if not j.units:
            j.null_reason = "no_units"

    # 2. labels
    todo = [j for j in out if j.null_reason is None and j.failed_call is None]
    results = ctx.call_many([request(j, "labels", units=_shown(j.units)) for j in todo],
                            "depth: labels")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        labels = _list(answer(res), "labels")
        if labels is None:
            j.null_reason = "unparseable:labels"
            continue
        _apply_labels(j, labels)
        if not j.units:
            j.null_reason = "no_units"

    # 3. grounding, only for reviews with premises (a claim's grounding stays null)
    todo = [j for j in out if j.null_reason is None and j.failed_call is None and _premises(j)]
    results = ctx.call_many([request(j, "grounding", premises=_shown(_premises(j))) for j in todo],
                            "depth: grounding")
    for j, res in zip(todo, results, strict=True):
        if _failed(j, res):
            continue
        scores = _list(answer(res), "grounding")
        if scores is None:
            j.null_reason = "unparseable:grounding"
            continue
        _apply_grounding(j, scores)
    return out


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


def _verbatim_units(j: Judgment, spans: list, review: JudgedReview, text: str) -> list[dict]:
    units, seen, cursor, cut = [], set(), 0, False
    for span in spans[:MAX_UNITS]:
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
            cursor, cut = start + len(words), len(span.strip()) >= MAX_UNIT_CHARS
            j.drop("cut_rejoined")
            continue
        if (start, words) in seen:  # the same words at the same place: one unit, not two
            j.drop("duplicate")
            continue
        seen.add((start, words))
        cursor, cut = start + len(words), len(span.strip()) >= MAX_UNIT_CHARS
        units.append({"unit_index": len(units), "text": words, "start": start, "field": field_at(review, start),
                      "role": None, "aspect": None, "grounding": None})
    if len(spans) > MAX_UNITS:  # a schema-less provider may answer more than the schema allows
        j.drop("over_max_units", len(spans) - MAX_UNITS)
    return units


def _number(item: dict, key: str, n: int) -> int | None:
    """A 1-based number the model gave, as a 0-based index, if it names one of the n items."""
    v = item.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not v.is_integer()) \
            or not 1 <= v <= n:
        return None
    return int(v) - 1


def _apply_labels(j: Judgment, labels: list) -> None:
    got: dict[int, tuple[str, str]] = {}
    for item in labels:
        if not isinstance(item, dict) or (k := _number(item, "unit", len(j.units))) is None or k in got:
            continue  # an unknown or repeated number labels nothing new: the first label wins
        role, aspect = (str(item.get(f) or "").strip().lower() for f in ("role", "aspect"))
        if role in ROLES and aspect in ASPECTS:
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
