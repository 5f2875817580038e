"""Every work the lake knows, as documents for the offline literature index.

- each paper's newest `paper_ingested` version: its title and abstract, read from the manuscript
  package (the paragraphs under an "Abstract" heading; else an inline "Abstract —" paragraph; else
  the front matter; else the first body paragraphs), cut to ABSTRACT_MAX_CHARS. The package is read
  as the JSON blob it is (the contract in ingest/package.py): ingest is a sibling layer, not imported.
- `paper_status_recorded`: the title, year and venue of papers known only from a venue's decisions
  (an OpenReview dump without PDFs), and a year or venue an ingested paper's event lacks.
- `related_work_imported`: the user's related-work records.

Nothing is left out for being the paper under review or too recent: that filtering is the judge's.
A record with neither title nor abstract has nothing to match and is not a document.
"""

import json
import re
import threading
from dataclasses import dataclass

from peerlake.retrieval.types import canonical_json, sha256_text
from peerlake.warehouse.events import PaperIngested, PaperStatusRecorded, RelatedWorkImported
from peerlake.warehouse.log import EventLog

ABSTRACT_MAX_CHARS = 1500  # an abstract is ~1,000-1,500 characters; the front-matter fallback can run long
_EVENT_TYPES = ("paper_ingested", "paper_status_recorded", "related_work_imported")
_SKIPPED_KINDS = ("page_marker", "image", "title", "heading", "reference", "table", "equation", "caption")
_INLINE_ABSTRACT = re.compile(r"(?i)^\s*abstract\b\s*[.:—–-]?\s*")


@dataclass(frozen=True)
class Document:
    doc_id: str  # "lake:<paper_id>" | "related:<work_id>": the candidate_id it is returned as
    title: str
    abstract: str | None
    year: int | None
    venue: str | None

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.abstract}" if self.abstract else self.title


def _cut(text: str, max_chars: int = ABSTRACT_MAX_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars * 0.8 else cut) + "…"


def package_abstract(package: dict) -> str | None:
    """The abstract of a manuscript package (its JSON as a dict), or None when it has no text."""
    hidden = {r.get("record_id") for r in package.get("removed") or []}  # anonymized away: not indexed
    records = [r for r in package.get("records") or [] if r.get("id") not in hidden and r.get("text")]
    prose = [r for r in records if r.get("kind") not in _SKIPPED_KINDS]
    picked = [r["text"] for r in prose if (r.get("section") or "").lower().startswith("abstract")]
    if not picked:
        for r in prose:
            if r.get("part") == "front" and _INLINE_ABSTRACT.match(r["text"]):
                picked = [_INLINE_ABSTRACT.sub("", r["text"], count=1)]
                break
    if not picked:
        picked = [r["text"] for r in prose if r.get("part") == "front"]
    if not picked:
        picked = [r["text"] for r in prose if r.get("part") == "body"][:3]
    text = _cut(" ".join(picked)) if picked else ""
    return text or None


class _Newest:
    """Per field, the value of the newest event (largest ULID) that had one."""

    def __init__(self) -> None:
        self.fields: dict[str, tuple[str, object]] = {}

    def offer(self, event_id: str, **values: object) -> None:
        for name, value in values.items():
            if value is not None and value != "" and (name not in self.fields or event_id > self.fields[name][0]):
                self.fields[name] = (event_id, value)

    def get(self, name: str):
        return self.fields[name][1] if name in self.fields else None


class LakeCorpus:
    """The documents of one lake, kept up to date from the log's tail (each refresh reads only what
    was appended since). Abstracts are cached by package hash: a package never changes."""

    def __init__(self, log: EventLog):
        self._reader = log.reader()
        self._blobs = log.blobs
        self._lock = threading.Lock()
        self._papers: dict[str, PaperIngested] = {}
        self._statuses: dict[str, _Newest] = {}
        self._related: dict[str, RelatedWorkImported] = {}
        self._abstracts: dict[str, str | None] = {}
        self._snapshot: tuple[str, tuple[Document, ...]] | None = None

    def refresh(self) -> tuple[str, tuple[Document, ...]]:
        """(index_version, documents sorted by id) as the log stands now."""
        with self._lock:
            events = self._reader.tail(_EVENT_TYPES)
            for ev in events:
                self._fold(ev)
            if events or self._snapshot is None:
                docs = tuple(sorted(self._documents(), key=lambda d: d.doc_id))
                self._snapshot = (index_version(docs), docs)
            return self._snapshot

    def _fold(self, ev) -> None:
        if isinstance(ev, PaperIngested):
            # ULIDs sort by creation time, so the largest id is the newest version.
            old = self._papers.get(ev.paper_id)
            if old is None or ev.event_id > old.event_id:
                self._papers[ev.paper_id] = ev
        elif isinstance(ev, PaperStatusRecorded):
            self._statuses.setdefault(ev.paper_id, _Newest()).offer(ev.event_id, title=ev.title, year=ev.year,
                                                                    venue=ev.venue)
        elif isinstance(ev, RelatedWorkImported):
            old = self._related.get(ev.work_id)
            if old is None or ev.event_id > old.event_id:
                self._related[ev.work_id] = ev

    def _abstract(self, package_sha256: str) -> str | None:
        if package_sha256 not in self._abstracts:
            self._abstracts[package_sha256] = package_abstract(json.loads(self._blobs.get_text(package_sha256)))
        return self._abstracts[package_sha256]

    def _documents(self):
        for pid in sorted(set(self._papers) | set(self._statuses)):
            paper, status = self._papers.get(pid), self._statuses.get(pid, _Newest())
            title = ((paper.title if paper else "") or status.get("title") or "").strip()
            abstract = self._abstract(paper.package_sha256) if paper else None
            year = (paper.year if paper else None) or status.get("year")
            venue = (paper.venue if paper else None) or status.get("venue")
            if title or abstract:
                yield Document(f"lake:{pid}", title, abstract, year, venue)
        for wid, ev in sorted(self._related.items()):
            yield Document(f"related:{wid}", ev.title.strip(), ev.abstract or None, ev.year, ev.venue)


def index_version(docs: tuple[Document, ...]) -> str:
    """SHA-256 over the sorted (doc id, text, year, venue) of every document. Year and venue are in it
    too because they are in the answer: a paper whose year became known must not replay without it."""
    rows = sorted([d.doc_id, d.text, d.year, d.venue] for d in docs)
    return sha256_text(canonical_json(rows))
