"""OpenReview API v2 notes → `HumanReviewImported` events (full note JSON kept as a blob).

Accepted file shapes: a list of notes, `{"notes": [...]}`, or an openreview-py submission dump
whose replies sit under `details.replies`. Only official reviews become events; other notes
(comments, decisions) come back as "ignored" outcomes.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warehouse.events import HumanReviewImported
from warehouse.log import EventLog

SOURCE = "openreview_api_v2"

ICLR2025_SCALE = "ICLR2025:1,3,5,6,8,10"
ICLR2026_SCALE = "ICLR2026:0,2,4,6,8,10"  # ICLR 2026 moved to even anchors

# Venue id → rating scale. Only venues whose scale was checked; others record None unless the
# caller names the scale, because a wrong scale would silently skew every calibration metric.
RATING_SCALES = {
    "ICLR.cc/2024/Conference": ICLR2025_SCALE,
    "ICLR.cc/2025/Conference": ICLR2025_SCALE,
    "ICLR.cc/2026/Conference": ICLR2026_SCALE,
    "Demo.cc/2026/Conference": ICLR2025_SCALE,
}

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class ReviewOutcome:
    """status: imported | skipped (already in the log) | ignored (not a review) | rejected."""

    status: str
    path: Path
    review_id: str | None = None
    paper_id: str | None = None
    event: HumanReviewImported | None = None
    reason: str | None = None


class NoteError(ValueError):
    pass


def scale_values(rating_scale: str) -> list[float]:
    """The allowed values of a scale label such as "ICLR2025:1,3,5,6,8,10"."""
    return [float(v) for v in rating_scale.split(":", 1)[1].split(",")]


def parse_score(value: Any, field: str) -> float:
    """A number, or a string that starts with one ("6: marginally above the acceptance threshold")."""
    if isinstance(value, bool):
        raise NoteError(f"{field} is a boolean ({value!r}), not a score")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and (m := _LEADING_NUMBER.match(value)):
        return float(m.group(1))
    raise NoteError(f"{field} {value!r} has no leading number")


def _value(content: dict, key: str) -> Any:
    v = content.get(key)
    return v.get("value") if isinstance(v, dict) else v  # v2 wraps values; v1 notes do not


def _invitations(note: dict) -> list[str]:
    inv = note.get("invitations") or ([note["invitation"]] if note.get("invitation") else [])
    return [i for i in inv if isinstance(i, str)]


def _is_official_review(note: dict) -> bool:
    return any(i.endswith("/-/Official_Review") for i in _invitations(note))


def _venue_of(note: dict) -> str | None:
    if isinstance(note.get("domain"), str):
        return note["domain"]
    for inv in _invitations(note):
        m = re.match(r"^(.*?)/(Submission\d+/)?-/", inv)
        if m:
            return m.group(1)
    return None


def _notes_in(doc: Any) -> list:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        if isinstance(doc.get("notes"), list):
            return doc["notes"]
        replies = (doc.get("details") or {}).get("replies")
        if isinstance(replies, list):
            return replies
    raise NoteError("top level is neither a list of notes, {\"notes\": [...]}, "
                    "nor a submission with details.replies")


def _review_event(log: EventLog, note: dict, venue: str | None,
                  rating_scale: str | None) -> HumanReviewImported:
    for key in ("id", "forum", "content"):
        if not note.get(key):
            raise NoteError(f"note is missing '{key}'")
    content = note["content"]
    if not isinstance(content, dict):
        raise NoteError("note 'content' is not an object")
    if _value(content, "rating") is None:
        raise NoteError("review has no content.rating")
    rating = parse_score(_value(content, "rating"), "content.rating")
    conf_raw = _value(content, "confidence")
    confidence = None if conf_raw is None else parse_score(conf_raw, "content.confidence")
    venue = venue or _venue_of(note)
    scale = rating_scale or RATING_SCALES.get(venue or "")
    if scale and rating not in scale_values(scale):
        raise NoteError(f"rating {rating:g} is not on the venue's scale {scale}")
    body = json.dumps(note, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return HumanReviewImported(
        paper_id=note["forum"],
        review_id=note["id"],
        source=SOURCE,
        venue=venue,
        rating=rating,
        rating_scale=scale,
        confidence=confidence,
        body_sha256=log.blobs.put_text(body),
    )


def import_reviews(log: EventLog, path: Path, venue: str | None = None,
                   rating_scale: str | None = None) -> list[ReviewOutcome]:
    """Import the official reviews in one file; bad notes are rejected, the rest still import."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        notes = _notes_in(doc)
    except OSError as exc:
        return [ReviewOutcome("rejected", path, reason=f"{path}: cannot be read ({exc.strerror or exc})")]
    except UnicodeDecodeError as exc:
        return [ReviewOutcome("rejected", path, reason=f"{path}: not UTF-8 text ({exc})")]
    except json.JSONDecodeError as exc:
        return [ReviewOutcome("rejected", path,
                              reason=f"{path}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})")]
    except NoteError as exc:
        return [ReviewOutcome("rejected", path, reason=f"{path}: {exc}")]

    known = {ev.review_id for ev in log.iter_events("human_review_imported")}
    outcomes: list[ReviewOutcome] = []
    events: list[HumanReviewImported] = []
    for i, note in enumerate(notes):
        where = f"{path} note #{i}"
        if not isinstance(note, dict):
            outcomes.append(ReviewOutcome("rejected", path, reason=f"{where}: not a JSON object"))
            continue
        rid, pid = note.get("id"), note.get("forum")
        if rid:
            where += f" (id {rid})"
        if not _is_official_review(note):
            outcomes.append(ReviewOutcome("ignored", path, rid, pid,
                                          reason=f"{where}: not an official review ({_invitations(note)})"))
            continue
        if rid in known:
            outcomes.append(ReviewOutcome("skipped", path, rid, pid, reason=f"{where}: already imported"))
            continue
        try:
            event = _review_event(log, note, venue, rating_scale)
        except NoteError as exc:
            outcomes.append(ReviewOutcome("rejected", path, rid, pid, reason=f"{where}: {exc}"))
            continue
        known.add(rid)
        events.append(event)
        outcomes.append(ReviewOutcome("imported", path, rid, pid, event))
    log.append_many(events)  # one fsync for the whole file
    return outcomes
