"""The reviews a judge reads: human (OpenReview, ASAP), made by peerlake, or imported from another
system, as (field, text) sections: every field a judge may read, mapped onto canonical kinds
(FIELD_KIND), and `JudgedReview.for_judge(judge)` the sections that judge reads (JUDGE_SECTIONS), the
same for a human review as for a system's.

A review key names a review across the lake and the marts (dbt builds the same strings):
  human:<review_id>                  a human review (human_review_imported)
  peerlake:<request_key>             a peerlake review: the llm_call that answered it
  peerlake:<review_key>              a reviewer system's normalized review (system_review)
  external:<system>:<review_id>      an imported review (external_review_imported)
"""

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from peerlake.ingest.prism_reviews import fields_of, snake, split_sections
from peerlake.warehouse import EventLog

# ---- canonical sections: every venue's and every system's fields mapped onto one vocabulary, so a
# judge reads the same sections of a human review as of a system's.
# A field's KIND says what it holds; "assessment" is strengths and weaknesses in one field (ICLR 2022's
# main_review, ICML 2025's claims_and_evidence ...), "whole" a review that is not split at all (ICLR
# 2017-2020's review, ASAP, an imported text without headings). "rating" (numbers, scales) and "meta"
# (code of conduct, ethics flags, titles) are never read: PRISM's formatters skip them too
# (constructiveness/src/utils.py format_human_review_full*).
KINDS = ("summary", "strengths", "weaknesses", "assessment", "questions", "suggestions", "limitations", "ethics",
         "recommendation", "other", "whole")
_FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "summary": ("summary", "summary_of_the_paper", "paper_summary", "summary_of_the_review", "review_summary",
                "summary_of_contributions", "summary_and_contributions", "summary_of_the_submission",
                "significance_and_novelty"),
    "strengths": ("strengths", "reasons_to_accept", "reasons_for_acceptance", "pros"),
    "weaknesses": ("weaknesses", "concerns", "reasons_to_reject", "reasons_for_rejection", "cons",
                   "essential_references_not_discussed"),
    "assessment": ("strength_and_weaknesses", "strengths_and_weaknesses", "main_review",
                   "other_strengths_and_weaknesses", "claims_and_evidence", "methods_and_evaluation_criteria",
                   "theoretical_claims", "experimental_designs_or_analyses", "supplementary_material",
                   "relation_to_broader_scientific_literature", "clarity_quality_novelty_and_reproducibility",
                   "rationale", "final_justification", "detailed_comments", "general_comments"),
    "questions": ("questions", "questions_for_authors", "questions_for_the_authors", "questions_to_the_authors",
                  "questions_for_authors_rebuttal"),
    "suggestions": ("suggestions", "other_comments_or_suggestions", "suggestions_for_improvement", "todo",
                    "to_do_list", "requested_changes", "additional_feedback", "minor_comments"),
    "limitations": ("limitations", "limitations_not_addressed_by_the_authors", "broader_impact_concerns"),
    "ethics": ("ethical_concerns", "ethics_concerns", "details_of_ethics_concerns"),
    # a recommendation in words (MLR's "Overall Recommendation", AI Scientist's Decision); one that is a
    # number on a scale ("6: marginally above", ICML's "3") is a rating (_readable)
    "recommendation": ("recommendation", "overall_recommendation", "decision", "paper_decision"),
    "rating": ("rating", "confidence", "soundness", "presentation", "contribution", "correctness",
               "technical_novelty_and_significance", "empirical_novelty_and_significance", "score",
               "overall_score", "overall_rating", "quality", "clarity", "significance", "originality"),
    "meta": ("title", "code_of_conduct", "flag_for_ethics_review", "ethics_flag", "first_time_reviewer",
             "review_id", "reviewer_id"),
    "whole": ("review", "comment", "text"),
}
FIELD_KIND: dict[str, str] = {f: kind for kind, names in _FIELD_KINDS.items() for f in names}
# The order a form's fields are shown in (the stored JSON may have its keys sorted): as the forms
# order them (ICML 2025: summary, claims ... other strengths and weaknesses, other comments or
# suggestions, questions for authors; NeurIPS: summary, strengths, weaknesses, questions, limitations).
FIELD_ORDER: tuple[str, ...] = (
    "summary", "summary_of_the_paper", "paper_summary", "summary_of_contributions", "summary_and_contributions",
    "summary_of_the_submission", "significance_and_novelty",
    "strengths", "reasons_to_accept", "reasons_for_acceptance", "pros",
    "weaknesses", "concerns", "reasons_to_reject", "reasons_for_rejection", "cons",
    "strength_and_weaknesses", "strengths_and_weaknesses", "main_review", "clarity_quality_novelty_and_reproducibility",
    "claims_and_evidence", "methods_and_evaluation_criteria", "theoretical_claims", "experimental_designs_or_analyses",
    "supplementary_material", "relation_to_broader_scientific_literature", "essential_references_not_discussed",
    "other_strengths_and_weaknesses", "rationale", "detailed_comments", "general_comments",
    "summary_of_the_review", "review_summary", "final_justification",
    "other_comments_or_suggestions", "suggestions", "suggestions_for_improvement", "requested_changes",
    "additional_feedback", "minor_comments",
    "questions", "questions_for_authors", "questions_for_the_authors", "questions_to_the_authors",
    "questions_for_authors_rebuttal", "todo", "to_do_list",
    "limitations", "limitations_not_addressed_by_the_authors", "broader_impact_concerns",
    "ethical_concerns", "ethics_concerns", "details_of_ethics_concerns",
    "recommendation", "overall_recommendation", "decision", "paper_decision",
    "review", "comment", "text")
_RANK = {f: i for i, f in enumerate(FIELD_ORDER)}
# What each kind stands for in PRISM's section vocabulary (Summary / Strengths / Weaknesses / Questions ...).
_WHOLE = frozenset({"summary", "strengths", "weaknesses", "questions", "suggestions", "limitations", "ethics",
                    "recommendation", "other"})
_STANDS_FOR = {"assessment": frozenset({"strengths", "weaknesses"}), "whole": _WHOLE}

# The argument of a review: PRISM's depth set, Summary / Strengths / Weaknesses (depth_of_analysis
# run_human.py L30-38, run_llm.py L42-54). Depth and focus read it; so does text overlap
# (metrics.text.review_texts).
ARGUMENT = frozenset({"summary", "strengths", "weaknesses"})


class _JudgeSections(Mapping):
    """Judge name -> the sections it reads, the same for humans and systems (None = every readable section:
    all but ratings and meta). Each judge module declares its own `SECTIONS` beside `JUDGE`, with the source
    of its choice; they are read on first use because the judge modules import this one."""

    _read: dict[str, frozenset[str] | None] | None = None

    def _sections(self) -> dict[str, frozenset[str] | None]:
        if self._read is None:
            from peerlake.judging import registry

            self._read = {name: module.SECTIONS for name, module in registry.by_judge().items()}
        return self._read

    def __getitem__(self, judge: str) -> frozenset[str] | None:
        return self._sections()[judge]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sections())

    def __len__(self) -> int:
        return len(self._sections())


JUDGE_SECTIONS: Mapping[str, frozenset[str] | None] = _JudgeSections()


def field_kind(name: str, guess: bool = False) -> str | None:
    """The kind of a review field (KINDS, "rating", "meta"); None when unknown. With `guess` (a heading
    an imported review wrote itself), a short heading is read by its words, and any other is "other"."""
    key = snake(name)
    if key in FIELD_KIND:
        return FIELD_KIND[key]
    base = key.rstrip("_0123456789")  # a repeated heading: questions_2
    if base in FIELD_KIND:
        return FIELD_KIND[base]
    if not guess:
        return None
    if len(key.split("_")) <= 8:  # a heading, not a paragraph that begins with "#"
        for word, kind in (("question", "questions"), ("limitation", "limitations"), ("ethic", "ethics"),
                           ("suggest", "suggestions"), ("strength", "strengths"), ("weakness", "weaknesses"),
                           ("concern", "weaknesses"), ("summary", "summary"), ("rating", "rating"),
                           ("confidence", "rating"), ("score", "rating")):
            if word in key:
                if kind in ("strengths", "weaknesses") and "strength" in key and "weakness" in key:
                    return "assessment"
                return kind
    return "other"


def reads(judge: str | None, name: str, guess: bool = False) -> bool:
    """Whether `judge` (JUDGE_SECTIONS; None = every section) reads a field with this name."""
    kind = field_kind(name, guess)
    if kind is None or kind in ("rating", "meta"):
        return False
    wanted = JUDGE_SECTIONS[judge] if judge is not None else None
    return wanted is None or bool(_STANDS_FOR.get(kind, frozenset({kind})) & wanted)


@dataclass(frozen=True)
class JudgedReview:
    review_key: str
    paper_id: str
    source: str  # human | peerlake | external
    system: str  # "human", a peerlake reviewer_config, or an external system's name
    sample_index: int | None
    sections: tuple[tuple[str, str], ...]  # (field, text) in order; empty when unreadable
    event_id: str  # the event that holds the review (human_review_imported, llm_call, ...)
    view: str | None = None  # the judge whose sections these are (for_judge); None = every readable section
    not_read: tuple[str, ...] = ()  # the review's fields this view leaves out

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sections)

    @property
    def text(self) -> str:
        """What the judge sees and what its verbatim spans must be substrings of."""
        return "\n\n".join(f"{name.replace('_', ' ').capitalize()}:\n{body}" for name, body in self.sections)

    def for_judge(self, judge: str) -> "JudgedReview":
        """The review as `judge` reads it: only the sections JUDGE_SECTIONS gives it, in order (a heading
        of an imported review is read by its words, see field_kind)."""
        guess = self.source == "external"
        kept = tuple((f, t) for f, t in self.sections if reads(judge, f, guess))
        return replace(self, sections=kept, view=judge,
                       not_read=self.not_read + tuple(f for f, _ in self.sections if not reads(judge, f, guess)))


def _value(v) -> str | None:
    """An OpenReview v2 field is {"value": ...}; v1 and ASAP fields are plain values."""
    if isinstance(v, dict):
        v = v.get("value")
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        v = "\n".join(f"- {x}" for x in v)
    if isinstance(v, str) and v.strip():
        return v.strip()
    return None


_RATING_TEXT = re.compile(r"^\s*\**\s*-?\d+(\.\d+)?\s*\**\s*(:|-|–|—|/|\(|$)")


def _readable(name: str, text: str, guess: bool = False) -> bool:
    """A field some judge reads: a known kind (or any heading, with `guess`), not a rating; a
    recommendation that is a number on a scale is a rating."""
    kind = field_kind(name, guess)
    if kind is None or kind in ("rating", "meta"):
        return False
    return not (kind == "recommendation" and _RATING_TEXT.match(text))


def review_sections(content: dict) -> tuple[tuple[str, str], ...]:
    """Every field of a review form that a judge may read (FIELD_KIND), in the form's order; ratings,
    meta fields and fields of no known kind are left out."""
    found = [(f, t) for f, v in content.items()
             if isinstance(f, str) and (t := _value(v)) is not None and _readable(f, t)]
    return tuple(sorted(found, key=lambda ft: _RANK.get(snake(ft[0]), len(_RANK))))  # a stable sort


def argument_sections(content: dict) -> tuple[tuple[str, str], ...]:
    """The fields that hold a review's argument (ARGUMENT: summary, strengths, weaknesses, and the fields
    that hold them together), in the form's order."""
    return tuple((f, t) for f, t in review_sections(content) if reads("depth", f))


def human_reviews(log: EventLog, paper_ids: Iterable[str] | None = None) -> list[JudgedReview]:
    wanted = None if paper_ids is None else set(paper_ids)
    latest: dict[str, object] = {}
    for ev in log.iter_events("human_review_imported"):
        if wanted is not None and ev.paper_id not in wanted:
            continue
        if ev.review_id not in latest or ev.event_id > latest[ev.review_id].event_id:
            latest[ev.review_id] = ev
    out = []
    for rid, ev in sorted(latest.items()):
        try:
            body = json.loads(log.blobs.get_text(ev.body_sha256))
        except (OSError, ValueError):
            body = {}
        out.append(JudgedReview(review_key=f"human:{rid}", paper_id=ev.paper_id, source="human",
                                system="human", sample_index=None, sections=human_sections(body),
                                event_id=ev.event_id))
    return out


def human_sections(body: object) -> tuple[tuple[str, str], ...]:
    """A human review's body blob (parsed JSON): its form's readable fields (`content`, or the body itself)."""
    content = body.get("content", body) if isinstance(body, dict) else {}
    return review_sections(content if isinstance(content, dict) else {})


def peerlake_reviews(log: EventLog, paper_ids: Iterable[str] | None = None,
                     reviewer_configs: Iterable[str] | None = None,
                     samples: dict[str, int] | None = None) -> list[JudgedReview]:
    """The newest answered review per (paper, configuration, sample), as int_review_scores_unioned
    picks it; `samples` limits each configuration to its first n samples."""
    wanted = None if paper_ids is None else set(paper_ids)
    configs = None if reviewer_configs is None else set(reviewer_configs)
    slots: dict[tuple, object] = {}
    for ev in log.iter_events("llm_call"):
        if ev.purpose != "review" or ev.status != "ok":
            continue
        if (wanted is not None and ev.subject_id not in wanted) or (configs is not None
                                                                     and ev.reviewer_config not in configs):
            continue
        if samples and ev.sample_index >= samples.get(ev.reviewer_config, 1 << 30):
            continue
        slot = (ev.subject_id, ev.reviewer_config, ev.sample_index)
        if slot not in slots or ev.event_id > slots[slot].event_id:
            slots[slot] = ev
    out = []
    for (paper_id, config, sample), ev in sorted(slots.items()):
        out.append(JudgedReview(review_key=f"peerlake:{ev.request_key}", paper_id=paper_id, source="peerlake",
                                system=config, sample_index=sample, sections=peerlake_sections(ev.response_text),
                                event_id=ev.event_id))
    return out


def system_reviews(log: EventLog, paper_ids: Iterable[str] | None = None,
                   samples: dict[str, int] | None = None) -> list[JudgedReview]:
    """Reviewer systems' normalized reviews (ok ones), the newest per (paper, system config, sample);
    `samples` maps the system configs to read to how many samples of each (None: every config)."""
    wanted = None if paper_ids is None else set(paper_ids)
    slots: dict[tuple, object] = {}
    for ev in log.iter_events("system_review"):
        if ev.status != "ok" or (wanted is not None and ev.paper_id not in wanted):
            continue
        if samples is not None and ev.sample_index >= samples.get(ev.system_config, 0):
            continue
        slot = (ev.paper_id, ev.system_config, ev.sample_index)
        if slot not in slots or ev.event_id > slots[slot].event_id:
            slots[slot] = ev
    return [JudgedReview(review_key=f"peerlake:{ev.review_key}", paper_id=paper_id, source="peerlake",
                         system=config, sample_index=sample,
                         sections=system_sections(ev.review_json),
                         event_id=ev.event_id)
            for (paper_id, config, sample), ev in sorted(slots.items())]


# A normalized review (warehouse.events.SystemReviewRecorded.review_json; the type is
# reviewing.systems.normalized, which this sibling layer may not import: the JSON is the contract):
# summary, strengths, weaknesses, questions, and in `extra` LLM-Review's suggestions, AI Scientist's
# limitations, MLR's to-do list; `recommendation` is the system's own words (MLR's overall
# recommendation, AI Scientist's decision). Scores, sub-scores and confidence are numbers: not read.
SYSTEM_EXTRA_FIELDS = ("suggestions", "limitations", "todo")


def system_sections(review_json: str) -> tuple[tuple[str, str], ...]:
    try:
        doc = json.loads(review_json)
    except ValueError:
        return ()
    if not isinstance(doc, dict):
        return ()
    extra = doc.get("extra") if isinstance(doc.get("extra"), dict) else {}
    content = {f: doc.get(f) for f in ("summary", "strengths", "weaknesses", "questions")}
    if _suggestions_as_questions(doc):
        content["suggestions"] = content.pop("questions")
    content.update({f: extra.get(f) for f in SYSTEM_EXTRA_FIELDS if f not in content or content[f] is None})
    content["recommendation"] = doc.get("recommendation")
    return review_sections(content)


def _suggestions_as_questions(doc: dict) -> bool:
    """AgentReview's form has suggestions for improvement and no questions; its normalized review keeps
    them under `questions` (reviewing/systems/agentreview.py). The system's own headings (`sections`)
    say which they are: a suggestions heading and no questions heading."""
    raw = doc.get("sections") if isinstance(doc.get("sections"), dict) else {}
    kinds = {field_kind(h, guess=True) for h in raw if isinstance(h, str)}
    return "suggestions" in kinds and "questions" not in kinds


def peerlake_sections(text: str | None) -> tuple[tuple[str, str], ...]:
    """A template review's JSON (prompts/schemas/review_score.json): summary, strengths, concerns (its
    weaknesses), rationale (the page-cited argument: an assessment); the scores are not read."""
    doc = None
    for candidate in (text or "", _braced(text or "")):
        try:
            doc = json.loads(candidate)
            break
        except ValueError:
            continue
    if not isinstance(doc, dict):
        return ()
    return review_sections(doc)


def _braced(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else ""


def external_reviews(log: EventLog, paper_ids: Iterable[str] | None = None,
                     systems: Iterable[str] | None = None) -> list[JudgedReview]:
    """Imported reviews; `systems` may contain "*" (every system)."""
    wanted = None if paper_ids is None else set(paper_ids)
    names = None if systems is None or "*" in set(systems) else set(systems)
    latest: dict[tuple, object] = {}
    for ev in log.iter_events("external_review_imported"):
        if (wanted is not None and ev.paper_id not in wanted) or (names is not None and ev.system not in names):
            continue
        key = (ev.system, ev.review_id)
        if key not in latest or ev.event_id > latest[key].event_id:
            latest[key] = ev
    annotated = {e.review_key for e in log.iter_events("span_annotation_imported")}
    out = []
    for (system, rid), ev in sorted(latest.items()):
        try:
            body = json.loads(log.blobs.get_text(ev.body_sha256))
        except (OSError, ValueError):
            body = None
        key = f"external:{system}:{rid}"
        out.append(JudgedReview(review_key=key, paper_id=ev.paper_id, source="external",
                                system=system, sample_index=ev.sample_index,
                                sections=external_sections(body, annotated=key in annotated),
                                event_id=ev.event_id))
    return out


def external_sections(body: object, annotated: bool) -> tuple[tuple[str, str], ...]:
    """An imported review's body blob (parsed JSON): its `text`, cut into sections (text_sections); a review
    whose character offsets were annotated (SubstanReview) stays one section, so the annotation's offsets
    keep pointing into the text the judge reads."""
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str) or not text.strip():
        return ()
    return (("text", text.strip()),) if annotated else text_sections(text)


# The kinds that show an imported text is a review form cut by its headings.
_FORM_KINDS = frozenset({"summary", "strengths", "weaknesses", "assessment", "questions"})


def text_sections(text: str) -> tuple[tuple[str, str], ...]:
    """An imported review's text: cut at its markdown headings ("**Weaknesses:**", "### Questions"; the
    splitter PRISM's imports use, ingest.prism_reviews.split_sections) when two or more of them name
    sections of a review form, each heading a field (snake_case, as PRISM's imports store them); else
    the whole text as one `text` section. Rating and confidence sections are then left out."""
    text = text.strip()
    fields, _ = fields_of(split_sections(text))
    kinds = [field_kind(f, guess=True) for f in fields]
    if sum(k in _FORM_KINDS for k in kinds) < 2:
        return (("text", text),)
    return tuple((f, body) for f, body in fields.items() if _readable(f, body, guess=True))
