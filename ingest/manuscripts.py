"""PDF → manuscript package: ordered text records with page numbers, plus an anonymized view.

The package is a pure function of the PDF bytes (no paper id, no clock), so the same bytes always
give the same package blob. Ingest turns it into a `PaperIngested` event that names the blob.
"""

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pymupdf

from ingest.demo_corpus import SYNTHETIC_LABEL
from warehouse.blobs import BlobStore, sha256_hex
from warehouse.events import PaperIngested
from warehouse.log import EventLog

# Bump when record extraction or anonymization changes: packages from older code stay readable,
# and the version says which rules produced them.
PACKAGE_VERSION = 1
EXTRACTOR = f"pymupdf-{pymupdf.VersionBind}/records-v{PACKAGE_VERSION}"

TRUNCATION_NOTE = "[… truncated …]"

# Ligatures expanded (no TEXT_PRESERVE_LIGATURES) so "ﬁxed" reads as "fixed"; whitespace is
# normalised by us, not preserved, because justified text comes out with runs of spaces.
_TEXT_FLAGS = pymupdf.TEXT_MEDIABOX_CLIP

_EMAIL = re.compile(r"[\w.+-]+\s*@\s*[\w-]+(\.[\w-]+)+|\{[^}]*\}\s*@\s*[\w-]+(\.[\w-]+)+")
_AFFILIATION = re.compile(
    r"\b(universit(y|ät|é|à)|institute|department|dept\.|laborator(y|ies)|school of|college|"
    r"inc\.|ltd|gmbh|corporation|research (lab|center|centre)|academy)\b", re.I)
_ANON_AUTHORS = re.compile(r"^anonymous authors?\b", re.I)
_MARKS = "†‡∗*§¶♠♢♡♣♦♥☯�,;&\\d"  # footnote and affiliation marks that follow author names
_NAME_TOKEN = re.compile(rf"^([A-Z][\w'.-]*[{_MARKS}]*|and|[{_MARKS}]+)$")
_FRONT_MATTER_END = re.compile(r"^(abstract\b|1\.?\s+introduction\b|introduction\b)", re.I)
_ACK_HEADING = re.compile(r"^(\d+(\.\d+)*\.?\s+)?acknowledge?ments?\b", re.I)


class ManuscriptError(ValueError):
    """The bytes are not a readable manuscript (empty, not a PDF, truncated, encrypted …)."""


@dataclass(frozen=True)
class TextRecord:
    """One block of text in reading order. kind: page_marker | title | heading | paragraph | preformatted."""

    id: str
    page: int
    kind: str
    text: str
    bbox: tuple[float, float, float, float] | None = None


@dataclass
class ManuscriptPackage:
    pdf_sha256: str
    title: str
    n_pages: int
    n_chars: int
    records: list[TextRecord]
    removed: list[dict] = field(default_factory=list)  # {record_id, reason, text} hidden from review_text
    extractor: str = EXTRACTOR
    package_version: int = PACKAGE_VERSION

    @property
    def n_text_records(self) -> int:
        return sum(1 for r in self.records if r.kind != "page_marker")

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), so equal packages give equal blob hashes."""
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "ManuscriptPackage":
        d = json.loads(text)
        d["records"] = [TextRecord(**{**r, "bbox": tuple(r["bbox"]) if r.get("bbox") else None})
                        for r in d["records"]]
        return cls(**d)

    def review_text(self, max_chars: int) -> str:
        """Anonymized text with `[page N]` markers, cut to at most `max_chars` with a visible note."""
        hidden = {r["record_id"] for r in self.removed}
        parts: list[str] = []
        for r in self.records:
            if r.id in hidden:
                continue
            if r.kind == "page_marker":
                parts.append(f"\n[page {r.page}]")
            elif r.kind in ("title", "heading"):
                parts.append(f"\n{r.text}")
            else:
                parts.append(r.text)
        text = "\n".join(parts).strip()
        if len(text) <= max_chars:
            return text
        room = max(0, max_chars - len(TRUNCATION_NOTE) - 1)
        cut = text[:room]
        # End on a word boundary when one is near, so the model never sees half a token.
        space = max(cut.rfind(" "), cut.rfind("\n"))
        if space > room - 80:
            cut = cut[:space]
        return f"{cut.rstrip()}\n{TRUNCATION_NOTE}"


# ---- extraction ------------------------------------------------------------------------------
def _open_pdf(pdf_bytes: bytes) -> pymupdf.Document:
    if not pdf_bytes:
        raise ManuscriptError("is empty (0 bytes)")
    if b"%PDF-" not in pdf_bytes[:1024]:
        raise ManuscriptError(f"is not a PDF (no %PDF- header; starts with {pdf_bytes[:16]!r})")
    # A download cut short loses the trailer; MuPDF would silently "repair" it and return the
    # pages it could find, so a half paper would pass as a whole one.
    if b"%%EOF" not in pdf_bytes[-2048:]:
        raise ManuscriptError("looks truncated (no %%EOF marker at the end of the file)")
    try:
        doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for broken files
        raise ManuscriptError(f"could not be parsed as PDF ({type(exc).__name__}: {exc})") from None
    if doc.needs_pass:
        raise ManuscriptError("is encrypted (needs a password to open)")
    if doc.page_count == 0:
        raise ManuscriptError("has no pages")
    return doc


def _join_lines(lines: list[str]) -> str:
    """Join a block's lines, undoing end-of-line hyphenation ("ingre-" + "dient")."""
    out = ""
    for line in lines:
        line = re.sub(r"\s+", " ", line).strip()
        if not line:
            continue
        if re.search(r"[a-z]-$", out) and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return out


def _page_blocks(page: pymupdf.Page) -> list[dict]:
    """Text blocks of one page: text, max font size, whether all bold / all monospace, bbox."""
    blocks = []
    for b in page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]:
        if b.get("type") != 0:
            continue
        spans = [s for line in b["lines"] for s in line["spans"] if s["text"].strip()]
        if not spans:
            continue
        mono = all(s["flags"] & pymupdf.TEXT_FONT_MONOSPACED for s in spans)
        lines = ["".join(s["text"] for s in line["spans"]) for line in b["lines"]]
        text = "\n".join(ln.rstrip() for ln in lines if ln.strip()) if mono else _join_lines(lines)
        blocks.append({
            "text": text,
            "size": max(s["size"] for s in spans),
            "chars": Counter({round(s["size"], 1): len(s["text"]) for s in spans}),
            "bold": all(s["flags"] & pymupdf.TEXT_FONT_BOLD for s in spans),
            "mono": mono,
            "bbox": tuple(round(v, 1) for v in b["bbox"]),
        })
    return blocks


def extract_records(pdf_bytes: bytes) -> ManuscriptPackage:
    """Read a PDF into a package of ordered text records; raises ManuscriptError for bad input."""
    doc = _open_pdf(pdf_bytes)
    try:
        pages = []
        for i, page in enumerate(doc):
            try:
                pages.append(_page_blocks(page))
            except Exception as exc:
                raise ManuscriptError(f"page {i + 1} could not be read ({type(exc).__name__}: {exc})") from None
        meta_title = (doc.metadata or {}).get("title") or ""
    finally:
        doc.close()
    sizes: Counter = Counter()
    for blocks in pages:
        for b in blocks:
            sizes.update(b["chars"])
    if not sizes:
        raise ManuscriptError("has no extractable text layer (a scan? OCR is not supported)")
    body_size = sizes.most_common(1)[0][0]

    first = pages[0]
    page_height = max((b["bbox"][3] for b in first), default=0)
    top = [b for b in first if b["bbox"][1] < page_height / 2]
    title_size = max((b["size"] for b in top), default=0)
    is_title = title_size > body_size * 1.15

    records: list[TextRecord] = []
    for pno, blocks in enumerate(pages, start=1):
        records.append(TextRecord(id=f"p{pno}-r0", page=pno, kind="page_marker", text=f"[page {pno}]"))
        n = 0
        for b in blocks:
            if pno == 1 and is_title and b in top and b["size"] == title_size:
                kind = "title"
                prev = records[-1]
                if prev.kind == "title":  # a title wrapped over several blocks is one record
                    records[-1] = TextRecord(prev.id, 1, "title", f"{prev.text} {b['text']}",
                                             _union(prev.bbox, b["bbox"]))
                    continue
            elif b["mono"]:
                kind = "preformatted"
            elif len(b["text"]) < 120 and not b["text"].endswith(".") and (
                    b["size"] > body_size * 1.05 or (b["bold"] and b["size"] >= body_size * 0.98)):
                kind = "heading"
            else:
                kind = "paragraph"
            n += 1
            records.append(TextRecord(id=f"p{pno}-r{n}", page=pno, kind=kind, text=b["text"], bbox=b["bbox"]))

    titles = [r.text for r in records if r.kind == "title"]
    title = titles[0] if titles else meta_title.strip() or next(
        (r.text[:200] for r in records if r.kind != "page_marker"), "")
    text_records = [r for r in records if r.kind != "page_marker"]
    return ManuscriptPackage(
        pdf_sha256=sha256_hex(pdf_bytes),
        title=title,
        n_pages=len(pages),
        n_chars=sum(len(r.text) for r in text_records),
        records=records,
        removed=_anonymize(records),
    )


def _union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _looks_like_names(text: str) -> bool:
    tokens = text.replace(",", " , ").split()
    return 2 <= len(tokens) <= 40 and all(_NAME_TOKEN.match(t) for t in tokens)


def _anonymize(records: list[TextRecord]) -> list[dict]:
    """Records a double-blind reviewer must not see: author, affiliation and e-mail lines in the
    front matter, e-mail addresses anywhere on page 1, the acknowledgements section, and the demo
    corpus's "synthetic paper" label."""
    removed: list[dict] = []

    def drop(r: TextRecord, reason: str) -> None:
        removed.append({"record_id": r.id, "reason": reason, "text": r.text})

    in_front = True
    in_ack = False
    for r in records:
        if r.kind in ("page_marker", "title"):
            continue
        if in_front and (r.page > 1 or _FRONT_MATTER_END.match(r.text)):
            in_front = False
        if r.kind == "heading" or _ACK_HEADING.match(r.text):
            in_ack = bool(_ACK_HEADING.match(r.text))
        if in_ack:
            drop(r, "acknowledgements")
        elif r.page == 1 and _EMAIL.search(r.text):
            drop(r, "e-mail address")
        elif in_front and r.text.startswith(SYNTHETIC_LABEL):
            # For people handling the files; a model told "not a real submission" stops reviewing.
            drop(r, "corpus label")
        elif in_front and _ANON_AUTHORS.match(r.text):
            drop(r, "author line")
        elif in_front and _AFFILIATION.search(r.text) and len(r.text) < 300:
            drop(r, "affiliation")
        elif in_front and _looks_like_names(r.text):
            drop(r, "author names")
    return removed


# ---- ingest ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class IngestOutcome:
    """status: ingested (first version) | new_version | unchanged | rejected."""

    status: str
    paper_id: str
    path: Path
    event: PaperIngested | None = None
    reason: str | None = None


def _latest_version(log: EventLog, paper_id: str) -> PaperIngested | None:
    latest = None
    for ev in log.iter_events("paper_ingested"):
        # ULIDs sort by creation time, so the largest id is the newest version.
        if ev.paper_id == paper_id and (latest is None or ev.event_id > latest.event_id):
            latest = ev
    return latest


def ingest_pdf(log: EventLog, path: Path, paper_id: str | None = None, venue: str | None = None,
               is_synthetic: bool = False) -> IngestOutcome:
    """Ingest one PDF as a new paper version; never raises for bad input (status "rejected")."""
    path = Path(path)
    pid = paper_id or path.stem

    def reject(why: str) -> IngestOutcome:
        return IngestOutcome("rejected", pid, path, None, f"{path}: {why}")

    try:
        data = path.read_bytes()
    except OSError as exc:
        return reject(f"cannot be read ({exc.strerror or exc})")
    pdf_sha = sha256_hex(data)
    latest = _latest_version(log, pid)
    if latest is not None and latest.pdf_sha256 == pdf_sha:
        return IngestOutcome("unchanged", pid, path, latest, None)
    try:
        package = extract_records(data)
    except ManuscriptError as exc:
        return reject(str(exc))
    package_sha = log.blobs.put_text(package.to_json())
    event = PaperIngested(
        paper_id=pid,
        title=package.title,
        source_uri=path.resolve().as_uri(),
        pdf_sha256=pdf_sha,
        package_sha256=package_sha,
        n_pages=package.n_pages,
        n_text_records=package.n_text_records,
        n_chars=package.n_chars,
        venue=venue,
        is_synthetic=is_synthetic,
    )
    log.append(event)
    return IngestOutcome("new_version" if latest else "ingested", pid, path, event, None)


def load_package(blobs: BlobStore, package_sha256: str) -> ManuscriptPackage:
    """The package stored under this hash (the blob store re-checks the hash on read)."""
    return ManuscriptPackage.from_json(blobs.get_text(package_sha256))
