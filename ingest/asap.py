"""ASAP-Review folders (e.g. ICLR 2017): parsed full text → manuscript packages, reviews with
rating strings → `human_review_imported`, decisions → `paper_status_recorded`.

A paper is three files, `<id>_paper.json` (title, decision), `<id>_review.json` (reviews with
"8: Top 50% …" strings) and `<id>_content.json` (science-parse output: sections, references),
either side by side (the sample) or in `*_paper/`, `*_review/`, `*_content/` folders (the full
tarball). There is no PDF: the package is built from the parsed sections, `pdf_sha256` is the
SHA-256 of the content file and `n_pages` is 0.
"""

import json
import re
from collections import defaultdict
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome, failure
from peerlake.ingest.openreview import ICLR2017_SCALE, NoteError, parse_score, scale_values, status_of_decision
from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.ingest.papers import latest_versions
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import HumanReviewImported, PaperIngested, PaperStatusRecorded
from peerlake.warehouse.log import EventLog

SOURCE = "asap_review"
VENUES = {"ICLR_2017": ("ICLR.cc/2017/conference", ICLR2017_SCALE, 2017)}
EXTRACTOR = "asap-science-parse/records-v1"
# An appendix section in science-parse output is lettered: "A PROOFS", "B.1 DETAILS".
_APPENDIX = re.compile(r"^(appendix\b|[A-H](\.\d+)*\.?\s+\S)", re.I)


def _kind_files(folder: Path) -> dict[str, dict[str, Path]]:
    """paper id → {"paper"|"review"|"content": path}."""
    found: dict[str, dict[str, Path]] = defaultdict(dict)
    for p in sorted(folder.rglob("*.json")):
        m = re.match(r"^(.+)_(paper|review|content)\.json$", p.name)
        if m:
            found[m.group(1)][m.group(2)] = p
    return found


def build_package(content: dict, source_bytes: bytes, title: str | None = None) -> ManuscriptPackage:
    """A manuscript package from science-parse JSON: title, abstract, sections, references."""
    meta = content.get("metadata") or {}
    records: list[TextRecord] = []
    part = "front"

    def add(kind: str, text: str, section: str | None) -> None:
        if text and text.strip():
            records.append(TextRecord(f"s-r{len(records)}", 0, kind, text.strip(), None, part, section))

    # The venue's title (paper.json) over science-parse's, which is often in capitals.
    title = (title or meta.get("title") or content.get("title") or "").strip()
    add("title", title, None)
    if meta.get("abstractText"):
        add("heading", "Abstract", "Abstract")
        add("paragraph", meta["abstractText"], "Abstract")
    sections = meta.get("sections") or []
    for sec in sections:
        heading = (sec.get("heading") or "").strip()
        if heading and part in ("front", "body") and _APPENDIX.match(heading) and records:
            part = "appendix"
        elif part == "front":
            part = "body"
        if heading:
            add("heading", heading, heading)
        for para in re.split(r"\n\s*\n|\n(?=[A-Z])", sec.get("text") or ""):
            add("paragraph", re.sub(r"\s+", " ", para), heading or None)
    refs = meta.get("references") or []
    if refs:
        saved, part = part, "references"
        add("heading", "References", "References")
        for ref in refs:
            authors = ", ".join(ref.get("author") or [])
            add("reference", f"{authors}. {ref.get('year') or ''}. {ref.get('title') or ''}. "
                             f"{ref.get('venue') or ''}".strip(" ."), "References")
        part = saved
    # Appendix sections sit before the reference list in science-parse output; keep document
    # order for reading, but references last is what the parts mean.
    removed = [{"record_id": "", "reason": "author metadata not included",
                "text": "; ".join(meta.get("authors") or []) + " | " + "; ".join(meta.get("emails") or [])}]
    text_records = [r for r in records if r.kind != "page_marker"]
    return ManuscriptPackage(pdf_sha256=sha256_hex(source_bytes), title=title, n_pages=0,
                             n_chars=sum(len(r.text) for r in text_records), records=records,
                             extractor=EXTRACTOR, removed=removed)


def import_asap(log: EventLog, folder: Path, prefix_venues: dict = VENUES) -> list[Outcome]:
    """Ingest every paper in an ASAP folder; a bad file or review is set aside, the rest still
    land. Outcomes: a paper's content (ingested | new_version | unchanged), its decision
    (status_recorded), each review (imported), skipped when already in the log, or rejected."""
    folder = Path(folder)
    batch = Batch(log, "asap")
    latest = latest_versions(log)
    known_reviews = {e.review_id for e in log.iter_events("human_review_imported")}
    known_status = {(e.paper_id, e.decision) for e in log.iter_events("paper_status_recorded")}

    for pid, files in _kind_files(folder).items():
        first = next(iter(files.values()))
        if batch.paper_id(first, pid, hint=" (read from the file name <paper id>_<kind>.json); rename "
                                           f"the {len(files)} file(s) of this paper") is None:
            continue
        prefix = next((p for p in prefix_venues if pid.startswith(p)), None)
        if prefix is None:
            batch.reject(first, f"paper id {pid!r} matches no known ASAP venue "
                         f"({', '.join(prefix_venues)})", paper_id=pid)
            continue
        venue, scale, year = prefix_venues[prefix]
        docs = {}
        for kind, path in files.items():
            try:
                raw = path.read_bytes()
                docs[kind] = (raw, json.loads(raw.decode("utf-8")))
            except UnicodeDecodeError as exc:
                batch.reject(path, f"not UTF-8 text ({exc})", paper_id=pid)
            except json.JSONDecodeError as exc:
                batch.reject(path, f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})", paper_id=pid)
            except RecursionError:
                batch.reject(path, TOO_DEEP, paper_id=pid)
            except OSError as exc:
                batch.reject(path, f"cannot be read ({exc.strerror or exc})", paper_id=pid)
            except Exception as exc:  # MemoryError …: this file is set aside, the paper's others go on
                batch.reject(path, failure(exc), paper_id=pid)
        paper = docs.get("paper", (b"", {}))[1]
        title = paper.get("title") if isinstance(paper, dict) else None
        title = title if isinstance(title, str) else None

        # Each file on its own: one that breaks the importer loses only itself.
        if "content" in docs:
            with batch.guard(files["content"], paper_id=pid):
                _content(batch, files["content"], pid, docs["content"], title, venue, year, latest)
        if "paper" in docs and isinstance(paper, dict) and paper.get("decision"):
            with batch.guard(files["paper"], paper_id=pid):
                _decision(batch, files["paper"], pid, paper, title, venue, year, known_status)
        if "review" in docs:
            with batch.guard(files["review"], paper_id=pid):
                _reviews(batch, files["review"], pid, docs["review"][1], venue, scale, known_reviews)
    return batch.commit()


def _content(batch: Batch, path: Path, pid: str, doc: tuple[bytes, object], title: str | None,
             venue: str, year: int, latest: dict[str, PaperIngested]) -> None:
    raw, content = doc
    sha = sha256_hex(raw)
    if pid in latest and latest[pid].pdf_sha256 == sha:
        batch.note("unchanged", path, paper_id=pid, event=latest[pid])
        return
    if not isinstance(content, dict) or not (content.get("metadata") or {}).get("sections"):
        batch.reject(path, "has no metadata.sections (no parsed full text)", paper_id=pid)
        return
    pkg = build_package(content, raw, title)
    pkg_sha = batch.log.blobs.put_text(pkg.to_json())
    # The source bytes under the hash the event names (there is no PDF: this file is the input).
    batch.log.blobs.put(raw)
    ev = PaperIngested(
        paper_id=pid, title=title or pkg.title, source_uri=path.resolve().as_uri(),
        pdf_sha256=sha, package_sha256=pkg_sha, n_pages=0,
        n_text_records=pkg.n_text_records, n_chars=pkg.n_chars, venue=venue,
        n_images=0, body_chars=pkg.part_chars("front", "body"),
        appendix_chars=pkg.part_chars("appendix"), references_chars=pkg.part_chars("references"),
        n_references=len(pkg.references), n_sections=len(pkg.sections), year=year)
    batch.emit("new_version" if pid in latest else "ingested", path, ev, paper_id=pid)
    latest[pid] = ev


def _decision(batch: Batch, path: Path, pid: str, paper: dict, title: str | None, venue: str,
              year: int, known_status: set[tuple[str, str]]) -> None:
    try:
        status, accepted = status_of_decision(paper["decision"])
    except NoteError as exc:
        batch.reject(path, str(exc), paper_id=pid)
        return
    if (pid, paper["decision"]) in known_status:
        batch.note("skipped", path, paper_id=pid, reason=f"{path}: decision already recorded")
        return
    known_status.add((pid, paper["decision"]))
    batch.emit("status_recorded", path, PaperStatusRecorded(
        paper_id=pid, venue=venue, status=status, decision=paper["decision"],
        is_accepted=accepted, source=SOURCE, source_note_id=None, title=title, year=year), paper_id=pid)


def _reviews(batch: Batch, path: Path, pid: str, doc: object, venue: str, scale: str,
             known_reviews: set[str]) -> None:
    reviews = doc.get("reviews") if isinstance(doc, dict) else None
    if not isinstance(reviews, list):
        batch.reject(path, "has no 'reviews' list", paper_id=pid)
        return
    allowed = scale_values(scale)
    for i, rev in enumerate(reviews):
        rid = f"{pid}-review-{i}"
        if rid in known_reviews:
            batch.note("skipped", path, item=rid, paper_id=pid, reason=f"{path}: review #{i} already imported")
            continue
        try:
            if not isinstance(rev, dict) or rev.get("rating") is None:
                raise NoteError("review has no rating")
            rating = parse_score(rev["rating"], "rating")
            if rating not in allowed:
                raise NoteError(f"rating {rating:g} is not on the venue's scale {scale}")
            conf = None if rev.get("confidence") is None else parse_score(rev["confidence"], "confidence")
        except NoteError as exc:
            batch.reject(path, f"review #{i}: {exc}", item=rid, paper_id=pid)
            continue
        body = json.dumps({"paper_id": pid, **rev}, sort_keys=True, ensure_ascii=False)
        batch.emit("imported", path, HumanReviewImported(
            paper_id=pid, review_id=rid, source=SOURCE, venue=venue, rating=rating,
            rating_scale=scale, confidence=conf, body_sha256=batch.log.blobs.put_text(body)),
            item=rid, paper_id=pid)
        known_reviews.add(rid)
