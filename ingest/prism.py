"""PRISM's released data (`data/<venue>/{papers,human_reviews,<system>_<venue>}/…` on its project page)
→ papers, human reviews, decisions and the five systems' reviews, so they run through every judge and mart.

DIR is the data root (its venue folders ICLR2024 … Neurlps2025), a folder holding `data/`, or one venue
folder. Per venue:
  papers/<id>.txt (.md, .mmd)   plain text → a manuscript package with no pages (ingest.plain_text)
  human_reviews/<id>.json       {"paper_id", "Decision", "reviews": [{"Review ID", "Rating" or "Overall
                                Recommendation", "Confidence"?, "Summary", …}], "title"?, "abstract"?} →
                                `human_review_imported` (source "prism") + `paper_status_recorded`
  <prefix>_<venue>/<id>…        one system's review → `external_review_imported` (ingest.prism_reviews)
A human review's body is note-shaped: {"id", "forum", "content": {field: text}, "titles": {field: heading},
"prism_index": k}: fields are the form's headings in snake_case (ICML's "Questions For Authors" →
`questions_for_authors`, OpenReview's own name), k is its 1-based place in the file (PRISM's `Human_k`).

Every file is read only when it is a regular file inside DIR (a link pointing out is refused) and at
most MAX_FILE_BYTES long; a bad file is named, recorded as `ingest_rejected` and set aside, and the
rest goes on. Re-importing the same folder writes nothing new.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.ingest.openreview import (
    RATING_KEYS,
    NoteError,
    ScaleError,
    parse_score,
    scale_for,
    scale_values,
    status_of_decision,
)
from peerlake.ingest.package import ManuscriptError
from peerlake.ingest.papers import latest_versions
from peerlake.ingest.plain_text import TEXT_SUFFIXES, text_package
from peerlake.ingest.prism_reviews import SYSTEMS, SystemReviewError, snake, system_review
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import ExternalReviewImported, HumanReviewImported, PaperIngested, PaperStatusRecorded
from peerlake.warehouse.log import EventLog

SOURCE = "prism"
# PRISM's venue folders (with the dataset's own spelling "Neurlps2025") → OpenReview venue id, year.
VENUES = {"iclr2024": ("ICLR.cc/2024/Conference", 2024), "iclr2025": ("ICLR.cc/2025/Conference", 2025),
          "iclr2026": ("ICLR.cc/2026/Conference", 2026), "icml2025": ("ICML.cc/2025/Conference", 2025),
          "neurips2025": ("NeurIPS.cc/2025/Conference", 2025), "neurlps2025": ("NeurIPS.cc/2025/Conference", 2025)}
# The largest released file is ~100 kB (a DeepReview JSON); 20 MB leaves room and stops a hostile file
# from being read into memory whole.
MAX_FILE_BYTES = 20_000_000
STATUSES = ("ingested", "new_version", "unchanged", "imported", "status_recorded", "skipped", "ignored",
            "rejected")


@dataclass
class Imported:
    """What one run found: every outcome, and the venues and systems it saw (for the study)."""

    outcomes: list[Outcome] = field(default_factory=list)
    venues: set[str] = field(default_factory=set)
    systems: set[str] = field(default_factory=set)
    paper_ids: set[str] = field(default_factory=set)


def venue_folders(root: Path) -> list[Path]:
    """The venue folders under DIR (DIR itself when it is one)."""
    if root.name.lower() in VENUES:
        return [root] if root.is_dir() else []
    for base in (root, root / "data"):
        found = sorted(p for p in base.iterdir() if p.is_dir() and p.name.lower() in VENUES) if base.is_dir() else []
        if found:
            return found
    return []


def import_prism(log: EventLog, root: Path) -> Imported:
    """Import every venue folder under `root`; never raises for bad input."""
    root = Path(root)
    out = Imported()
    folders = venue_folders(root)
    if not folders:
        batch = Batch(log, SOURCE)
        known = ", ".join(sorted({k for k in VENUES if k != "neurlps2025"}))
        batch.reject(root, f"holds no PRISM venue folder ({known}, case-insensitive; or data/<venue>/)")
        out.outcomes += batch.commit()
        return out
    top = root.resolve()
    for folder in folders:
        _import_venue(log, top, folder, out)
    return out


def _files(batch: Batch, top: Path, folder: Path) -> list[Path]:
    """The regular files of one folder that are inside DIR and small enough; the others rejected."""
    kept = []
    for path in sorted(folder.iterdir()):
        if not path.resolve().is_relative_to(top):
            batch.reject(path, f"points outside {top} (a link); refused")
        elif path.is_dir():
            batch.note("ignored", path, reason=f"{path}: a folder inside a PRISM data folder")
        elif not path.is_file():
            batch.reject(path, "is not a regular file")
        elif path.stat().st_size > MAX_FILE_BYTES:
            batch.reject(path, f"is {path.stat().st_size} bytes, more than a PRISM file holds "
                               f"({MAX_FILE_BYTES}); refused")
        else:
            kept.append(path)
    return kept


def _read(batch: Batch, path: Path) -> tuple[bytes, str] | None:
    try:
        data = path.read_bytes()
        return data, data.decode("utf-8")
    except OSError as exc:
        batch.reject(path, f"cannot be read ({exc.strerror or exc})")
    except UnicodeDecodeError as exc:
        batch.reject(path, f"not UTF-8 text (byte {exc.start}: {exc.reason}); re-save it as UTF-8")
    return None


def _import_venue(log: EventLog, top: Path, folder: Path, out: Imported) -> None:
    venue, year = VENUES[folder.name.lower()]
    n0 = len(out.outcomes)
    _import_venue_parts(log, top, folder, venue, year, out)
    # a venue enters the study only when something of it is in the lake: a study of a venue whose
    # every file was refused would select no paper
    if any(o.status not in ("rejected", "ignored") for o in out.outcomes[n0:]):
        out.venues.add(venue)


def _import_venue_parts(log: EventLog, top: Path, folder: Path, venue: str, year: int, out: Imported) -> None:
    subs = {p.name: p for p in sorted(folder.iterdir()) if p.is_dir()}
    meta: dict[str, dict] = {}  # paper id → title, abstract (human_reviews carry them)
    batch = Batch(log, SOURCE)
    if not folder.resolve().is_relative_to(top):
        batch.reject(folder, f"points outside {top} (a link); refused")
        out.outcomes += batch.commit()
        return
    if "human_reviews" in subs:
        _humans(batch, top, subs.pop("human_reviews"), venue, year, meta, out)
    out.outcomes += batch.commit()
    if "papers" in subs:
        _papers(Batch(log, SOURCE), top, subs.pop("papers"), venue, year, meta, out)
    for name, sub in subs.items():
        prefix = name.split("_", 1)[0].lower()
        batch = Batch(log, SOURCE)
        if prefix not in SYSTEMS:
            batch.note("ignored", sub, reason=f"{sub}: not a PRISM system folder (known prefixes: "
                                              f"{', '.join(SYSTEMS)})")
        elif not sub.resolve().is_relative_to(top):
            batch.reject(sub, f"points outside {top} (a link); refused")
        else:
            _systems(batch, top, sub, prefix, venue, out)
        out.outcomes += batch.commit()


def _stem(path: Path) -> str:
    name = path.name
    for tail in ("_review.json", ".grobid.txt", *TEXT_SUFFIXES, ".json"):
        if name.endswith(tail):
            return name[: -len(tail)]
    return path.stem



def _humans(batch: Batch, top: Path, folder: Path, venue: str, year: int, meta: dict, out: Imported) -> None:
    known = {e.review_id for e in batch.log.iter_events("human_review_imported")}
    known_status = {(e.paper_id, e.status, e.decision, e.source_note_id)
                    for e in batch.log.iter_events("paper_status_recorded")}
    for path in _files(batch, top, folder):
        if path.suffix.lower() != ".json":
            batch.note("ignored", path, reason=f"{path}: not a .json human-review file")
            continue
        with batch.guard(path):
            _human_file(batch, path, venue, year, meta, known, known_status, out)


def _human_file(batch: Batch, path: Path, venue: str, year: int, meta: dict, known: set,
                known_status: set, out: Imported) -> None:
    pid = batch.paper_id(path, _stem(path), hint="; PRISM names the file after the OpenReview forum id")
    if pid is None or (read := _read(batch, path)) is None:
        return
    try:
        doc = json.loads(read[1])
    except json.JSONDecodeError as exc:
        batch.reject(path, f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})", paper_id=pid)
        return
    except RecursionError:
        batch.reject(path, TOO_DEEP, paper_id=pid)
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("reviews"), list):
        batch.reject(path, "is not PRISM's human-review shape ({\"paper_id\", \"reviews\": [...]})", paper_id=pid)
        return
    if doc.get("paper_id") not in (None, pid):
        batch.reject(path, f"says paper_id {str(doc.get('paper_id'))[:80]!r} but is named {pid}", paper_id=pid)
        return
    out.paper_ids.add(pid)
    meta[pid] = {k: doc[k] for k in ("title", "abstract", "primary_area") if isinstance(doc.get(k), str)}
    scale = scale_for(venue)
    for k, review in enumerate(doc["reviews"], start=1):
        where = f"{path} review #{k}"
        with batch.guard(path, where=where, item=f"review #{k}", paper_id=pid):
            _human_review(batch, path, where, pid, venue, scale, k, review, known)
    decision = doc.get("Decision")
    if isinstance(decision, str) and decision.strip() and decision.strip() != "TBD":
        try:
            status, accepted = status_of_decision(decision)
        except NoteError as exc:
            batch.reject(path, str(exc), where=f"{path} Decision", paper_id=pid)
            return
        if (pid, status, decision.strip(), None) in known_status:
            batch.note("skipped", path, paper_id=pid, reason=f"{path}: status of {pid} already recorded")
            return
        batch.emit("status_recorded", path, PaperStatusRecorded(
            paper_id=pid, venue=venue, status=status, decision=decision.strip(), is_accepted=accepted,
            source=SOURCE, title=meta[pid].get("title"), year=year, area=meta[pid].get("primary_area") or None),
            paper_id=pid)
        known_status.add((pid, status, decision.strip(), None))


def _human_review(batch: Batch, path: Path, where: str, pid: str, venue: str, scale: str, k: int,
                  review, known: set) -> None:
    item = f"review #{k}"
    if not isinstance(review, dict):
        batch.reject(path, "is not an object", where=where, item=item, paper_id=pid)
        return
    rid = review.get("Review ID")
    if not isinstance(rid, str) or not rid.strip():
        batch.reject(path, "has no 'Review ID'", where=where, item=item, paper_id=pid)
        return
    rid = rid.strip()
    if rid in known:
        batch.note("skipped", path, item=rid, paper_id=pid, reason=f"{where}: already imported ({rid})")
        return
    content = {snake(key): value for key, value in review.items() if key != "Review ID" and isinstance(value, str)}
    titles = {snake(key): key for key in review if key != "Review ID" and isinstance(review[key], str)}
    try:
        key = next((k_ for k_ in RATING_KEYS if content.get(k_, "").strip()), None)
        if key is None:
            raise NoteError(f"has no {' or '.join(repr(k_) for k_ in RATING_KEYS)} score")
        rating = parse_score(content[key], titles[key])
        if rating not in scale_values(scale):
            raise ScaleError(f"rating {rating:g} is not on the venue's scale {scale}")
        confidence = parse_score(content["confidence"], "Confidence") if content.get("confidence", "").strip() else None
    except NoteError as exc:
        batch.reject(path, str(exc), where=where, item=rid, paper_id=pid)
        return
    body = json.dumps({"id": rid, "forum": pid, "source": SOURCE, "venue": venue, "prism_index": k,
                       "content": content, "titles": titles},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    event = HumanReviewImported(paper_id=pid, review_id=rid, source=SOURCE, venue=venue, rating=rating,
                                rating_scale=scale, confidence=confidence, body_sha256=batch.log.blobs.put_text(body))
    batch.emit("imported", path, event, item=rid, paper_id=pid)
    known.add(rid)



def _papers(batch: Batch, top: Path, folder: Path, venue: str, year: int, meta: dict, out: Imported) -> None:
    versions = latest_versions(batch.log)
    for path in _files(batch, top, folder):
        if not path.name.lower().endswith(TEXT_SUFFIXES):
            batch.note("ignored", path, reason=f"{path}: not a text paper ({', '.join(TEXT_SUFFIXES)})")
            continue
        with batch.guard(path):
            _paper(batch, path, venue, year, meta, versions, out)
        # each paper on its own: a crash mid-folder keeps the papers already done
        out.outcomes += batch.commit()
        batch.outcomes = []
    out.outcomes += batch.commit()  # the folder's refusals when no paper followed them


def _paper(batch: Batch, path: Path, venue: str, year: int, meta: dict, versions: dict, out: Imported) -> None:
    pid = batch.paper_id(path, _stem(path), hint="; PRISM names the file after the OpenReview forum id")
    if pid is None or (read := _read(batch, path)) is None:
        return
    data, text = read
    sha = sha256_hex(data)
    latest = versions.get(pid)
    out.paper_ids.add(pid)
    if latest is not None and latest.pdf_sha256 == sha:
        batch.note("unchanged", path, paper_id=pid, event=latest)
        return
    info = meta.get(pid, {})
    try:
        package = text_package(text, sha, title=info.get("title"), abstract=info.get("abstract"))
    except ManuscriptError as exc:
        batch.reject(path, str(exc), paper_id=pid, content_sha256=sha)
        return
    blobs = batch.log.blobs
    blobs.put(data)  # the exact input, under the hash the event names
    event = PaperIngested(
        paper_id=pid, title=package.title, source_uri=path.resolve().as_uri(), pdf_sha256=sha,
        package_sha256=blobs.put_text(package.to_json()), n_pages=0, n_text_records=package.n_text_records,
        n_chars=package.n_chars, venue=venue, n_images=0, body_chars=package.part_chars("front", "body"),
        appendix_chars=package.part_chars("appendix"), references_chars=package.part_chars("references"),
        n_references=len(package.references), n_sections=len(package.sections), year=year,
        area=info.get("primary_area") or None, n_hidden_records=0)
    versions[pid] = event
    batch.emit("new_version" if latest else "ingested", path, event, paper_id=pid)



def _systems(batch: Batch, top: Path, folder: Path, prefix: str, venue: str, out: Imported) -> None:
    system = SYSTEMS[prefix]
    known = {(e.system, e.review_id) for e in batch.log.iter_events("external_review_imported")}
    for path in _files(batch, top, folder):
        if not path.name.lower().endswith((".txt", ".json")):
            batch.note("ignored", path, reason=f"{path}: not a .txt/.json review")
            continue
        with batch.guard(path):
            _system_file(batch, path, prefix, system, venue, known, out)


def _system_file(batch: Batch, path: Path, prefix: str, system: str, venue: str, known: set, out: Imported) -> None:
    pid = batch.paper_id(path, _stem(path), hint="; PRISM names the file after the OpenReview forum id")
    if pid is None or (read := _read(batch, path)) is None:
        return
    if (system, pid) in known:
        batch.note("skipped", path, item=pid, paper_id=pid, reason=f"{path}: already imported ({system})")
        return
    data, raw = read
    try:
        review = system_review(prefix, raw)
    except SystemReviewError as exc:
        batch.reject(path, str(exc), paper_id=pid, content_sha256=sha256_hex(data))
        return
    except RecursionError:
        batch.reject(path, TOO_DEEP, paper_id=pid)
        return
    blobs = batch.log.blobs
    # not sort_keys: `fields` keeps the review's section order (the same text always gives the same bytes)
    body = json.dumps({"system": system, "text": review["text"], "fields": review["fields"],
                       "field_titles": review["field_titles"], "format": f"prism:{prefix}", "venue": venue,
                       "source_sha256": blobs.put(data)},
                      ensure_ascii=False, separators=(",", ":"))
    event = ExternalReviewImported(paper_id=pid, review_id=pid, system=system, sample_index=0,
                                   score=review["score"], confidence=review["confidence"],
                                   body_sha256=blobs.put_text(body), source_path=str(path), line_no=0)
    batch.emit("imported", path, event, item=pid, paper_id=pid)
    known.add((system, pid))
    out.systems.add(system)
    out.paper_ids.add(pid)

