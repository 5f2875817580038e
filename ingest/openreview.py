"""OpenReview notes → `HumanReviewImported` events (full note JSON kept as a blob) and paper
statuses (`PaperStatusRecorded`).

Accepted file shapes: a list of notes, `{"notes": [...]}`, one note, or an openreview-py submission
dump whose replies sit under `details.replies` (also inside a list). API v1 notes (plain values,
one `invitation`) and API v2 notes (`{"value": …}` wrappers, `invitations` lists; camelCase raw
JSON or openreview-py's snake_case `vars(Note)`) are both read. Official reviews become review
events; the submission's final venueid, decisions, meta-reviews, withdrawals and desk rejections
become one status per paper (a decided venueid outranks every note); comments come back as
"ignored" outcomes. Anything set aside is an `ingest_rejected` event (`ingest/batch.py`).
"""

import json
import re
from pathlib import Path
from typing import Any

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.warehouse.events import HumanReviewImported, PaperStatusRecorded
from peerlake.warehouse.log import EventLog

SOURCE = "openreview_api_v2"
SOURCE_V1 = "openreview_api_v1"

ICLR2017_SCALE = "ICLR2017:1,2,3,4,5,6,7,8,9,10"
ICLR2020_SCALE = "ICLR2020:1,3,6,8"
ICLR2025_SCALE = "ICLR2025:1,3,5,6,8,10"
ICLR2026_SCALE = "ICLR2026:0,2,4,6,8,10"  # ICLR 2026 moved to even anchors
# ICML 2025's "Overall Recommendation" (1 strong reject … 5 strong accept) and NeurIPS 2025's rating
# (1 strong reject … 6 strong accept), as their 2025 review forms define them.
ICML2025_SCALE = "ICML2025:1,2,3,4,5"
NEURIPS2025_SCALE = "NeurIPS2025:1,2,3,4,5,6"

# Venue id → rating scale. Only venues whose scale was checked against their review forms; any
# other venue needs an explicit scale, because a wrong one would skew every calibration metric.
RATING_SCALES = {
    "ICLR.cc/2017/conference": ICLR2017_SCALE,
    "ICLR.cc/2017/Conference": ICLR2017_SCALE,
    "ICLR.cc/2018/Conference": "ICLR2018:1,2,3,4,5,6,7,8,9,10",
    "ICLR.cc/2019/Conference": "ICLR2019:1,2,3,4,5,6,7,8,9,10",
    "ICLR.cc/2020/Conference": ICLR2020_SCALE,
    "ICLR.cc/2021/Conference": "ICLR2021:1,2,3,4,5,6,7,8,9,10",
    "ICLR.cc/2022/Conference": "ICLR2022:1,3,5,6,8,10",
    "ICLR.cc/2023/Conference": "ICLR2023:1,3,5,6,8,10",
    "ICLR.cc/2024/Conference": ICLR2025_SCALE,
    "ICLR.cc/2025/Conference": ICLR2025_SCALE,
    "ICLR.cc/2026/Conference": ICLR2026_SCALE,
    "ICML.cc/2025/Conference": ICML2025_SCALE,
    "NeurIPS.cc/2025/Conference": NEURIPS2025_SCALE,
    "Demo.cc/2026/Conference": ICLR2025_SCALE,
}
# Where a review form keeps its overall score: `rating` almost everywhere, but ICML 2025 asks for an
# "Overall Recommendation" and has no `rating` field (and no confidence).
RATING_KEYS = ("rating", "overall_recommendation")

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")
_SCALE = re.compile(r"^[\w.-]+:-?\d+(\.\d+)?(,-?\d+(\.\d+)?)+$")
# Status notes: a decision settles a paper, a meta-review only recommends.
_STATUS_KINDS = ("desk_rejection", "withdrawal", "decision", "meta_review")
# Where a paper's status can come from, strongest first. The submission's public venueid, once it
# names an outcome (accepted, rejected, withdrawn, desk-rejected), is the venue's final word: it
# outranks every note, since a meta-review only recommends and a decision can be overturned (a
# paper withdrawn or desk-rejected after it). A venueid that still says "Submission" ranks last.
_STATUS_RANK = ("final_venueid", *_STATUS_KINDS, "submitted")


class NoteError(ValueError):
    pass


class ScaleError(NoteError):
    """A rating scale that is unknown for the venue, malformed, or does not fit the ratings."""


def scale_values(rating_scale: str) -> list[float]:
    """The allowed values of a scale label such as "ICLR2025:1,3,5,6,8,10"."""
    if not isinstance(rating_scale, str) or not _SCALE.match(rating_scale):
        raise ScaleError(f"rating scale {rating_scale!r} is not of the form NAME:v1,v2,…")
    return [float(v) for v in rating_scale.split(":", 1)[1].split(",")]


def scale_for(venue: str | None, rating_scale: str | None = None) -> str:
    """The scale to check ratings against: the one given, else the venue's known one."""
    if rating_scale:
        scale_values(rating_scale)
        return rating_scale
    if venue in RATING_SCALES:
        return RATING_SCALES[venue]
    raise ScaleError(f"no rating scale is known for venue {venue!r}; pass one explicitly "
                     "(e.g. --rating-scale NAME:1,2,3,4,5) after checking the venue's review form")


def parse_score(value: Any, field: str) -> float:
    """A number, or a string that starts with one ("6: marginally above the acceptance threshold")."""
    if isinstance(value, bool):
        raise NoteError(f"{field} is a boolean ({value!r}), not a score")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and (m := _LEADING_NUMBER.match(value)):
        return float(m.group(1))
    raise NoteError(f"{field} {value!r} has no leading number")


def status_of_decision(text: str) -> tuple[str, bool | None]:
    """(status, acceptance label) of a venue's decision words; raises NoteError when unclear."""
    t = text.lower()
    if "withdr" in t:
        return "withdrawn", False
    if "desk" in t and "reject" in t:
        return "desk_rejected", False
    if "reject" in t:
        return "rejected", False
    if any(w in t for w in ("accept", "oral", "spotlight", "poster", "notable")):
        return "accepted", True
    if "workshop" in t:  # ICLR 2017 "Invite to Workshop Track": not accepted to the conference
        return "rejected", False
    raise NoteError(f"decision {text!r} is neither an acceptance nor a rejection")


def _value(content: dict, key: str) -> Any:
    v = content.get(key)
    return v.get("value") if isinstance(v, dict) else v  # v2 wraps values; v1 notes do not


def _invitations(note: dict) -> list[str]:
    inv = note.get("invitations") or ([note["invitation"]] if note.get("invitation") else [])
    return [i for i in inv if isinstance(i, str)]


def note_kind(note: dict) -> str:
    """review | decision | meta_review | withdrawal | desk_rejection | submission | other."""
    if note.get("id") and note.get("id") == note.get("forum") and not note.get("replyto"):
        return "submission"
    for inv in _invitations(note):
        tail = inv.rsplit("/-/", 1)[-1].lower().replace("/", "_")
        if tail.endswith(("official_review", "official_review_")):
            return "review"
        if tail.endswith(("decision", "acceptance")):
            return "decision"
        if tail.endswith(("meta_review", "metareview")):
            return "meta_review"
        if tail.endswith(("desk_rejection", "desk_reject")):
            return "desk_rejection"
        if tail.endswith(("withdrawal", "withdraw")):
            return "withdrawal"
        if tail.endswith(("submission", "blind_submission")):
            return "submission"
    return "other"


def _venue_of(note: dict) -> str | None:
    if isinstance(note.get("domain"), str):
        return note["domain"]
    for inv in _invitations(note):
        m = re.match(r"^(.*?)/(-/|Submission\d+/-/|Paper\d+/-/)", inv)
        if m:
            return m.group(1)
    return None


def _year_of(venue: str | None) -> int | None:
    m = re.search(r"/(\d{4})/", venue or "")
    return int(m.group(1)) if m else None


def _flatten(notes: list) -> list:
    """A submission dump carries its replies under details.replies: read both."""
    out = []
    for n in notes:
        out.append(n)
        details = n.get("details") if isinstance(n, dict) else None
        if isinstance(details, dict) and isinstance(details.get("replies"), list):
            out.extend(details["replies"])
    return out


def _notes_in(doc: Any) -> list:
    if isinstance(doc, list):
        return _flatten(doc)
    if isinstance(doc, dict):
        if isinstance(doc.get("notes"), list):
            return _flatten(doc["notes"])
        details = doc.get("details")
        if (isinstance(details, dict) and isinstance(details.get("replies"), list)) or (
                isinstance(doc.get("content"), dict) and doc.get("id")):
            return _flatten([doc])
    raise NoteError("top level is neither a list of notes, {\"notes\": [...]}, a note, "
                    "nor a submission with details.replies")


def _api_source(note: dict) -> str:
    return SOURCE if ("invitations" in note or note.get("version") == 2) else SOURCE_V1


def _review_event(log: EventLog, note: dict, venue: str | None,
                  rating_scale: str | None) -> HumanReviewImported:
    for key in ("id", "forum", "content"):
        if not note.get(key):
            raise NoteError(f"note is missing '{key}'")
    content = note["content"]
    if not isinstance(content, dict):
        raise NoteError("note 'content' is not an object")
    key = next((k for k in RATING_KEYS if _value(content, k) is not None), None)
    if key is None:
        raise NoteError(f"review has no {' or '.join(f'content.{k}' for k in RATING_KEYS)}")
    rating = parse_score(_value(content, key), f"content.{key}")
    conf_raw = _value(content, "confidence")
    confidence = None if conf_raw is None else parse_score(conf_raw, "content.confidence")
    venue = venue or _venue_of(note)
    scale = scale_for(venue, rating_scale)
    if rating not in scale_values(scale):
        raise ScaleError(f"rating {rating:g} is not on the venue's scale {scale}")
    body = json.dumps(note, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return HumanReviewImported(
        paper_id=note["forum"],
        review_id=note["id"],
        source=_api_source(note),
        venue=venue,
        rating=rating,
        rating_scale=scale,
        confidence=confidence,
        body_sha256=log.blobs.put_text(body),
    )


def _submission_status(note: dict) -> tuple[str, str | None, bool | None] | None:
    """A status read off a submission's own venue fields (v2 sets venueid on decision)."""
    content = note.get("content") or {}
    venueid = str(_value(content, "venueid") or "")
    venue_text = str(_value(content, "venue") or "")
    if venueid.endswith("Withdrawn_Submission"):
        return "withdrawn", venue_text or None, False
    if venueid.endswith("Desk_Rejected_Submission"):
        return "desk_rejected", venue_text or None, False
    if venueid.endswith("Rejected_Submission"):
        return "rejected", venue_text or None, False
    if venueid and not venueid.endswith("Submission") and re.search(r"oral|spotlight|poster|accept", venue_text, re.I):
        return "accepted", venue_text, True
    # Still under review (or the dump predates the decision): a status that carries the paper's
    # title and area, with no acceptance label; any decision note outranks it.
    return "submitted", venue_text or None, None


def _status_candidate(note: dict, kind: str) -> tuple[str, str | None, bool | None]:
    content = note.get("content") or {}
    if kind == "withdrawal":
        return "withdrawn", _value(content, "title") or "Withdrawn", False
    if kind == "desk_rejection":
        return "desk_rejected", _value(content, "title") or "Desk rejected", False
    words = _value(content, "decision") or _value(content, "recommendation")
    if not isinstance(words, str) or not words.strip():
        raise NoteError(f"{kind} note has no content.decision or content.recommendation")
    status, accepted = status_of_decision(words)
    return status, words.strip(), accepted


def _settle(candidates: list[tuple[int, dict, tuple]]) -> tuple[dict, tuple]:
    """The (note, (status, words, label)) a paper ends with: the strongest candidate. When the
    final venueid wins and a note says the same status, that note is kept for its own words
    ("Accept (Oral)") and id, so a re-import of an already-consistent paper records nothing new."""
    rank, note, found = min(candidates, key=lambda c: c[0])
    if _STATUS_RANK[rank] == "final_venueid":
        agreeing = [c for c in candidates if c[0] != rank and c[2][0] == found[0]]
        if agreeing:
            _, note, found = min(agreeing, key=lambda c: c[0])
    return note, found


def import_notes(log: EventLog, notes: list, path: Path, venue: str | None = None,
                 rating_scale: str | None = None, record_rejections: bool = True) -> list[Outcome]:
    """Import reviews and statuses from parsed notes; bad notes are rejected, the rest import."""
    batch = Batch(log, "openreview", record_rejections=record_rejections)
    known = {ev.review_id for ev in log.iter_events("human_review_imported")}
    known_status = {(e.paper_id, e.status, e.decision, e.source_note_id)
                    for e in log.iter_events("paper_status_recorded")}
    submissions: dict[str, dict] = {}
    candidates: dict[str, list[tuple[int, dict, tuple]]] = {}  # forum → [(rank, note, (status, words, label))]
    for i, note in enumerate(notes):
        where = f"{path} note #{i}"
        if not isinstance(note, dict):
            batch.reject(path, "not a JSON object", where=where)
            continue
        rid = note.get("id")
        if rid is not None and not isinstance(rid, str):
            batch.reject(path, f"note 'id' must be a string, got {type(rid).__name__}", where=where)
            continue
        where += f" (id {rid})" if rid else ""
        with batch.guard(path, where=where, item=rid):
            _one_note(batch, path, note, where, venue, rating_scale, known, submissions, candidates)

    for pid, found_for_paper in candidates.items():
        with batch.guard(path, where=f"{path} status of {pid}", paper_id=pid):
            _record_status(batch, path, pid, found_for_paper, submissions.get(pid, {}), venue, known_status)
    return batch.commit()  # one fsync for the whole file


def _one_note(batch: Batch, path: Path, note: dict, where: str, venue: str | None, rating_scale: str | None,
              known: set[str], submissions: dict[str, dict], candidates: dict[str, list]) -> None:
    rid, pid = note.get("id"), note.get("forum")
    kind = note_kind(note)
    # The forum id is the paper id of every event a note gives; a comment gives none.
    if kind in ("submission", "review", *_STATUS_KINDS) and pid is not None and (
            pid := batch.paper_id(path, pid, where=where, item=rid)) is None:
        return
    if kind == "submission":
        if pid:
            found = _submission_status(note)
            rank = _STATUS_RANK.index("submitted" if found[0] == "submitted" else "final_venueid")
            submissions[pid] = note
            candidates.setdefault(pid, []).append((rank, note, found))
        batch.note("ignored", path, item=rid, paper_id=pid, reason=f"{where}: submission")
        return
    if kind in _STATUS_KINDS:
        try:
            if not pid:
                raise NoteError("note is missing 'forum'")
            found = _status_candidate(note, kind)
        except NoteError as exc:
            batch.reject(path, str(exc), where=where, item=rid, paper_id=pid)
            return
        candidates.setdefault(pid, []).append((_STATUS_RANK.index(kind), note, found))
        return
    if kind != "review":
        batch.note("ignored", path, item=rid, paper_id=pid if isinstance(pid, str) else None,
                   reason=f"{where}: not an official review ({_invitations(note)})")
        return
    if rid in known:
        batch.note("skipped", path, item=rid, paper_id=pid, reason=f"{where}: already imported")
        return
    try:
        event = _review_event(batch.log, note, venue, rating_scale)
    except NoteError as exc:
        batch.reject(path, str(exc), where=where, item=rid, paper_id=pid)
        return
    known.add(rid)
    batch.emit("imported", path, event, item=rid, paper_id=pid)


def _record_status(batch: Batch, path: Path, pid: str, found_for_paper: list, sub: dict, venue: str | None,
                   known_status: set) -> None:
    note, (status, words, label) = _settle(found_for_paper)
    content = sub.get("content") or {}
    v = venue or _venue_of(note) or _venue_of(sub)
    if (pid, status, words, note.get("id")) in known_status:
        batch.note("skipped", path, item=note.get("id"), paper_id=pid,
                   reason=f"{path}: status of {pid} already recorded")
        return
    event = PaperStatusRecorded(
        paper_id=pid, venue=v, status=status, decision=words, is_accepted=label,
        source=_api_source(note), source_note_id=note.get("id"),
        title=_value(content, "title"), year=_year_of(v),
        area=_value(content, "primary_area") or None)
    batch.emit("status_recorded", path, event, item=note.get("id"), paper_id=pid)


def _load_notes(path: Path) -> list:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise NoteError(f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise NoteError(f"not UTF-8 text ({exc})") from None
    except json.JSONDecodeError as exc:
        raise NoteError(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise NoteError(TOO_DEEP) from None
    return _notes_in(doc)


def read_notes(path: Path) -> list:
    """The notes in one exported file; raises NoteError naming the file and the reason."""
    try:
        return _load_notes(path)
    except NoteError as exc:
        raise NoteError(f"{path}: {exc}") from None


def import_reviews(log: EventLog, path: Path, venue: str | None = None,
                   rating_scale: str | None = None) -> list[Outcome]:
    """Import the official reviews and paper statuses in one file; a file that cannot be read
    as notes is rejected whole."""
    path = Path(path)
    batch, notes = Batch(log, "openreview"), None
    with batch.guard(path):
        try:
            notes = _load_notes(path)
        except NoteError as exc:
            batch.reject(path, str(exc))
    if notes is None:
        return batch.commit()
    return import_notes(log, notes, path, venue, rating_scale)


def iter_note_files(paths: list[Path]) -> list[Path]:
    """Files as given, folders expanded to their *.json files (sorted, not recursive)."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(q for q in p.iterdir() if q.suffix.lower() == ".json") if p.is_dir() else [p])
    return out
