"""The reviews a judge reads: human (OpenReview, ASAP), made by peerlake, or imported from another
system, each reduced to the fields that hold its argument.

A review key names a review across the lake and the marts (dbt builds the same strings):
  human:<review_id>                  a human review (human_review_imported)
  peerlake:<request_key>             a peerlake review: the llm_call that answered it
  peerlake:<review_key>              a reviewer system's normalized review (system_review)
  external:<system>:<review_id>      an imported review (external_review_imported)
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass

from warehouse import EventLog

# The fields PRISM judges (summary, strengths, weaknesses). Venues name them differently; the group of
# which a review has the most fields wins (the first on a tie), and the fields used are recorded with
# every judgment.
ARGUMENT_FIELDS: tuple[tuple[str, ...], ...] = (
    ("summary", "strengths", "weaknesses"),
    ("summary_of_the_paper", "strength_and_weaknesses", "summary_of_the_review"),  # ICLR 2022/2023
    ("summary_of_the_paper", "main_review", "summary_of_the_review"),  # ICLR 2021/2022
    ("summary", "strengths_and_weaknesses"),  # NeurIPS 2022
    ("review",),  # ICLR 2017-2020, ASAP
    ("comment",),
)
# A peerlake review's JSON (prompts/schemas/review_score.json): concerns are its weaknesses, the
# rationale carries the page-cited argument.
PEERLAKE_FIELDS = ("summary", "strengths", "concerns", "rationale")


@dataclass(frozen=True)
class JudgedReview:
    review_key: str
    paper_id: str
    source: str  # human | peerlake | external
    system: str  # "human", a peerlake reviewer_config, or an external system's name
    sample_index: int | None
    sections: tuple[tuple[str, str], ...]  # (field, text) in order; empty when unreadable
    event_id: str  # the event that holds the review (human_review_imported, llm_call, ...)

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sections)

    @property
    def text(self) -> str:
        """What the judge sees and what its verbatim spans must be substrings of."""
        return "\n\n".join(f"{name.replace('_', ' ').capitalize()}:\n{body}" for name, body in self.sections)


def _value(v) -> str | None:
    """An OpenReview v2 field is {"value": ...}; v1 and ASAP fields are plain values."""
    if isinstance(v, dict):
        v = v.get("value")
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        v = "\n".join(f"- {x}" for x in v)
    if isinstance(v, str) and v.strip():
        return v.strip()
    return None


def argument_sections(content: dict) -> tuple[tuple[str, str], ...]:
    """The field group of ARGUMENT_FIELDS the review fills most (its non-empty fields, in order)."""
    best: tuple[tuple[str, str], ...] = ()
    for group in ARGUMENT_FIELDS:
        found = tuple((f, t) for f in group if (t := _value(content.get(f))) is not None)
        if len(found) > len(best):
            best = found
    return best


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
        content = body.get("content", body) if isinstance(body, dict) else {}
        out.append(JudgedReview(review_key=f"human:{rid}", paper_id=ev.paper_id, source="human",
                                system="human", sample_index=None,
                                sections=argument_sections(content if isinstance(content, dict) else {}),
                                event_id=ev.event_id))
    return out


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
                                system=config, sample_index=sample, sections=_peerlake_sections(ev.response_text),
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
                         sections=_system_sections(ev.review_json),
                         event_id=ev.event_id)
            for (paper_id, config, sample), ev in sorted(slots.items())]


# A normalized review's argument (warehouse.events.SystemReviewRecorded.review_json; the type is
# reviewing.systems.normalized, which this sibling layer may not import: the JSON is the contract).
SYSTEM_FIELDS = ("summary", "strengths", "weaknesses", "questions")


def _system_sections(review_json: str) -> tuple[tuple[str, str], ...]:
    try:
        doc = json.loads(review_json)
    except ValueError:
        return ()
    if not isinstance(doc, dict):
        return ()
    return tuple((f, t) for f in SYSTEM_FIELDS if (t := _value(doc.get(f))) is not None)


def _peerlake_sections(text: str | None) -> tuple[tuple[str, str], ...]:
    doc = None
    for candidate in (text or "", _braced(text or "")):
        try:
            doc = json.loads(candidate)
            break
        except ValueError:
            continue
    if not isinstance(doc, dict):
        return ()
    return tuple((f, t) for f in PEERLAKE_FIELDS if (t := _value(doc.get(f))) is not None)


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
    out = []
    for (system, rid), ev in sorted(latest.items()):
        try:
            text = json.loads(log.blobs.get_text(ev.body_sha256)).get("text")
        except (OSError, ValueError, AttributeError):
            text = None
        sections = (("text", text.strip()),) if isinstance(text, str) and text.strip() else ()
        out.append(JudgedReview(review_key=f"external:{system}:{rid}", paper_id=ev.paper_id, source="external",
                                system=system, sample_index=ev.sample_index, sections=sections,
                                event_id=ev.event_id))
    return out
