"""PDF → manuscript package: typed text records and images in reading order, sections, an
anonymized view.

The package is a pure function of the PDF bytes (no paper id, no clock), so the same bytes always
give the same package blob. Images are stored once as blobs named by their SHA-256; the package
names them and `load_package` re-checks every hash. Ingest turns the package into a
`PaperIngested` event, or an `IngestRejected` event when the file is set aside.
"""

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pymupdf

from ingest.demo_corpus import SYNTHETIC_LABEL
from ingest.pdf_layout import Block, image_blocks, reading_order, text_blocks
from warehouse import settings
from warehouse.blobs import BlobCorrupted, BlobStore, sha256_hex
from warehouse.events import IngestRejected, PaperIngested
from warehouse.log import EventLog

# Bump when record extraction or anonymization changes: packages from older code stay readable,
# and the version says which rules produced them.
PACKAGE_VERSION = 2
EXTRACTOR = f"pymupdf-{pymupdf.VersionBind}/records-v{PACKAGE_VERSION}"

TRUNCATION_NOTE = "[… truncated …]"

_EMAIL = re.compile(r"[\w.+-]+\s*@\s*[\w-]+(\.[\w-]+)+|\{[^}]*\}\s*@\s*[\w-]+(\.[\w-]+)+")
_AFFILIATION = re.compile(
    r"\b(universit(y|ät|é|à)|institute|department|dept\.|laborator(y|ies)|school of|college|"
    r"inc\.|ltd|gmbh|corporation|research (lab|center|centre)|academy)\b", re.I)
_ANON_AUTHORS = re.compile(r"^anonymous authors?\b", re.I)
_MARKS = "†‡∗*§¶♠♢♡♣♦♥☯�,;&\\d\x8e"  # footnote and affiliation marks that follow author names
_NAME_TOKEN = re.compile(rf"^([A-Z][\w'.-]*[{_MARKS}]*|and|[{_MARKS}]+)$")
_FRONT_MATTER_END = re.compile(r"^(abstract\b|1\.?\s+introduction\b|introduction\b)", re.I)
_ACK_HEADING = re.compile(r"^(\d+(\.\d+)*\.?\s+)?acknowledge?ments?\b", re.I)
_AUTHOR_NOTE = re.compile(r"(equal contribution|work (was )?done|corresponding author|contributed equally)", re.I)

_CAPTION = re.compile(r"^(figure|fig\.|table|tab\.|algorithm|listing)\s*[A-Z]?\d+[a-z]?\s*[.:|]", re.I)
_NUMBERED_HEADING = re.compile(r"^(\d+(\.\d+)*|[A-H](\.\d+)*)\.?\s+[A-Z]")
_NAMED_HEADING = re.compile(
    r"^(\d+\.?\s+)?(abstract|introduction|related work|background|methods?|materials and methods|"
    r"results|discussion|conclusions?|references|bibliography|literature cited|acknowledge?ments?|"
    r"appendix|appendices|supplementary (material|information)|supporting information|limitations)\b",
    re.I)
_REFERENCES_HEADING = re.compile(r"^(\d+\.?\s+)?(references|bibliography|literature cited|works cited)\s*$", re.I)
_APPENDIX_HEADING = re.compile(
    r"^((appendix|appendices)\b|(supplementary|supplemental) (material|information)\b|[A-H](\.\d+)*\.?\s+[A-Z])")
_EQUATION_NUMBER = re.compile(r"\(\s*\d+[a-z]?\s*\)\s*$")
_REF_NUMBERED = re.compile(r"(?:^|\s)(?=\[\d+\]\s)|(?:^|(?<=\.\s))(?=\d{1,3}\.\s+[A-Z])")
# A numbered bibliography with no heading (Nature/Sci. Rep. style): "1. Nielsen, M. A. & …"
_BIB_ENTRY = re.compile(r"^(\[\d{1,3}\]|\d{1,3}\.)\s+[A-Z][\w'’-]+,?\s+([A-Z]\.[\s-]*)+")
_ENDS_SENTENCE = re.compile(r"[.!?:;)\]”\"']\s*$")


class ManuscriptError(ValueError):
    """The bytes are not a readable manuscript (empty, not a PDF, truncated, encrypted …)."""

    def __init__(self, message: str, severity: str = "error"):
        super().__init__(message)
        self.severity = severity


@dataclass(frozen=True)
class TextRecord:
    """One item in reading order. kind: page_marker | title | heading | paragraph | caption |
    table | equation | footnote | reference | preformatted | image.
    part: front | body | references | appendix."""

    id: str
    page: int
    kind: str
    text: str
    bbox: tuple[float, float, float, float] | None = None
    part: str = "body"
    section: str | None = None
    image_sha256: str | None = None


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
    images: list[dict] = field(default_factory=list)  # {sha256, ext, width, height, pages}
    n_furniture: int = 0  # running headers, footers and page numbers left out of the records

    @property
    def n_text_records(self) -> int:
        return sum(1 for r in self.records if r.kind not in ("page_marker", "image"))

    @property
    def n_images(self) -> int:
        return len(self.images)

    def part_records(self, *parts: str) -> list[TextRecord]:
        return [r for r in self.records if r.part in parts and r.kind not in ("page_marker", "image")]

    def part_chars(self, *parts: str) -> int:
        return sum(len(r.text) for r in self.part_records(*parts))

    @property
    def sections(self) -> list[str]:
        """Section headings in order (front-matter headings other than the abstract left out:
        bold author rows look like headings)."""
        return list(dict.fromkeys(r.section for r in self.records if r.section and (
            r.part != "front" or r.section.lower().startswith("abstract"))))

    @property
    def references(self) -> list[str]:
        return [r.text for r in self.records if r.kind == "reference"]

    def body_text(self) -> str:
        """Front matter and main body, without references and appendix (not anonymized)."""
        return "\n".join(r.text for r in self.part_records("front", "body"))

    def appendix_text(self) -> str:
        return "\n".join(r.text for r in self.part_records("appendix"))

    def appendix_outline(self) -> str:
        """One line naming the appendix's size and headings: what a body-only reader is told."""
        heads = [r.text for r in self.records if r.part == "appendix" and r.kind == "heading"]
        if not heads and not self.part_chars("appendix"):
            return ""
        pages = sorted({r.page for r in self.records if r.part == "appendix" and r.page})
        where = f" on pages {pages[0]}–{pages[-1]}" if pages else ""
        listed = "; ".join(h[:80] for h in heads[:20]) or "no headings"
        return f"[Appendix not included: {self.part_chars('appendix')} characters{where}; sections: {listed}]"

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), so equal packages give equal blob hashes."""
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "ManuscriptPackage":
        d = json.loads(text)
        d["records"] = [TextRecord(**{**r, "bbox": tuple(r["bbox"]) if r.get("bbox") else None})
                        for r in d["records"]]
        return cls(**d)

    def review_text(self, max_chars: int, include_appendix: bool = False) -> str:
        """Anonymized main body and references with `[page N]` markers; the appendix is named in
        one line unless asked for. Cut to at most `max_chars` with a visible note."""
        hidden = {r["record_id"] for r in self.removed}
        parts: list[str] = []
        for r in self.records:
            if r.id in hidden or (r.part == "appendix" and not include_appendix):
                continue
            if r.kind == "page_marker":
                parts.append(f"\n[page {r.page}]")
            elif r.kind == "image":
                continue  # a text reader gets the caption, not a hash
            elif r.kind in ("title", "heading"):
                parts.append(f"\n{r.text}")
            else:
                parts.append(r.text)
        # Page markers of appendix-only pages would be noise without their text.
        text = re.sub(r"(\n\[page \d+\]\n?)+(?=\n\[page \d+\]|\Z)", "", "\n".join(parts)).strip()
        if not include_appendix and (outline := self.appendix_outline()):
            text = f"{text}\n\n{outline}"
        if len(text) <= max_chars:
            return text
        room = max(0, max_chars - len(TRUNCATION_NOTE) - 1)
        cut = text[:room]
        # End on a word boundary when one is near, so the model never sees half a token.
        space = max(cut.rfind(" "), cut.rfind("\n"))
        if space > room - 80:
            cut = cut[:space]
        return f"{cut.rstrip()}\n{TRUNCATION_NOTE}"


# ---- opening ---------------------------------------------------------------------------------
def _open_pdf(pdf_bytes: bytes, max_pages: int | None = None) -> pymupdf.Document:
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
    if max_pages is not None and doc.page_count > max_pages:
        raise ManuscriptError(f"has {doc.page_count} pages, over the limit of {max_pages} "
                              "(PEERLAKE_INGEST_MAX_PAGES)")
    return doc


# ---- classification --------------------------------------------------------------------------
def _is_furniture(b: Block, page_h: float, repeated: set[str]) -> bool:
    """Running headers, footers and page numbers: in the top/bottom margin, or repeated on pages."""
    if b.kind != "text" or len(b.text) > 200:
        return False
    in_margin = b.bbox[3] < 0.07 * page_h or b.bbox[1] > 0.925 * page_h
    return in_margin or _furniture_key(b.text) in repeated


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def _kind(b: Block, body_size: float, page_h: float) -> str:
    text = b.text
    if b.mono:
        return "preformatted"
    if _CAPTION.match(text):
        return "caption"
    short = len(text) < 120 and not text.endswith(".")
    if short and (b.size > body_size * 1.05 or (b.bold and b.size >= body_size * 0.98)):
        return "heading"
    if short and len(text) < 80 and b.size >= body_size * 0.98 and (
            _NUMBERED_HEADING.match(text) or _NAMED_HEADING.match(text)) and len(text.split()) <= 12:
        return "heading"
    if b.size <= body_size * 0.9 and b.bbox[1] > 0.6 * page_h and re.match(r"^[\d*∗†‡§¶]", text):
        return "footnote"
    if len(text) < 250 and _EQUATION_NUMBER.search(text):
        return "equation"
    letters = sum(c.isalpha() for c in text)
    if len(text) >= 6 and letters / len(text) < 0.45:
        return "equation" if b.n_lines <= 3 else "table"
    words = text.split()
    numeric = sum(bool(re.fullmatch(r"[-+±]?\d+([.,]\d+)?%?", w)) for w in words)
    if b.n_lines >= 3 and words and numeric / len(words) > 0.3:
        return "table"
    return "paragraph"


def _split_references(text: str) -> list[str]:
    """One block of a bibliography may hold several numbered entries ("[1] …", "12. …")."""
    parts = [p.strip() for p in _REF_NUMBERED.split(text) if p and p.strip()]
    return parts or [text]


# ---- extraction ------------------------------------------------------------------------------
@dataclass
class _Item:
    page: int
    kind: str
    text: str
    bbox: tuple | None
    size: float = 0.0
    xref: int = 0


def extract_package(pdf_bytes: bytes, max_pages: int | None = None,
                    max_images: int | None = None) -> tuple[ManuscriptPackage, dict[str, bytes]]:
    """Read a PDF into a package and its image bytes by SHA-256; raises ManuscriptError."""
    doc = _open_pdf(pdf_bytes, max_pages)
    try:
        pages: list[tuple[float, float, list[Block]]] = []
        xrefs: set[int] = set()
        for i, page in enumerate(doc):
            try:
                blocks = text_blocks(page) + image_blocks(page)
            except Exception as exc:
                raise ManuscriptError(f"page {i + 1} could not be read ({type(exc).__name__}: {exc})") from None
            xrefs.update(b.xref for b in blocks if b.kind == "image")
            if max_images is not None and len(xrefs) > max_images:
                raise ManuscriptError(f"has more than {max_images} images (at page {i + 1}; "
                                      "PEERLAKE_INGEST_MAX_IMAGES)")
            pages.append((page.rect.width, page.rect.height, reading_order(blocks, page.rect.width)))
        image_bytes, image_meta = _extract_images(doc, xrefs)
        meta_title = (doc.metadata or {}).get("title") or ""
    finally:
        doc.close()

    sizes: Counter = Counter()
    for _, _, blocks in pages:
        for b in blocks:
            sizes.update(b.chars)
    if not sizes:
        raise ManuscriptError("has no extractable text layer (a scan? OCR is not supported)",
                              severity="warning")
    body_size = sizes.most_common(1)[0][0]

    # Text that recurs in the margins of many pages is a running header or footer.
    seen: Counter = Counter()
    for _, h, blocks in pages:
        seen.update({_furniture_key(b.text) for b in blocks if b.kind == "text"
                     and (b.bbox[3] < 0.12 * h or b.bbox[1] > 0.88 * h) and len(b.text) < 200})
    repeated = {k for k, n in seen.items() if len(pages) >= 3 and n >= max(3, len(pages) // 2)}

    items: list[_Item] = []
    n_furniture = 0
    for pno, (w, h, blocks) in enumerate(pages, start=1):
        items.append(_Item(pno, "page_marker", f"[page {pno}]", None))
        for b in blocks:
            if b.kind == "image":
                if b.xref in image_meta:
                    items.append(_Item(pno, "image", "", b.bbox, xref=b.xref))
                continue
            if _is_furniture(b, h, repeated):
                n_furniture += 1
                continue
            items.append(_Item(pno, _kind(b, body_size, h), b.text, b.bbox, b.size))
    _mark_title(items, pages, body_size)
    items = _merge_split_paragraphs(items)
    records = _sectioned_records(items, image_meta)

    titles = [r.text for r in records if r.kind == "title"]
    title = titles[0] if titles else meta_title.strip() or next(
        (r.text[:200] for r in records if r.kind not in ("page_marker", "image")), "")
    pkg = ManuscriptPackage(
        pdf_sha256=sha256_hex(pdf_bytes),
        title=title,
        n_pages=len(pages),
        n_chars=sum(len(r.text) for r in records if r.kind not in ("page_marker", "image")),
        records=records,
        removed=_anonymize(records),
        images=sorted(image_meta.values(), key=lambda m: (m["pages"][0], m["sha256"])),
        n_furniture=n_furniture,
    )
    return pkg, image_bytes


def extract_records(pdf_bytes: bytes) -> ManuscriptPackage:
    """Read a PDF into a package of ordered records (images named, not returned)."""
    return extract_package(pdf_bytes)[0]


def _extract_images(doc: pymupdf.Document, xrefs: set[int]) -> tuple[dict[str, bytes], dict[int, dict]]:
    """Each distinct image once, in its stored format, keyed by the SHA-256 of those bytes."""
    by_sha: dict[str, bytes] = {}
    meta: dict[int, dict] = {}
    for xref in sorted(xrefs):
        try:
            img = doc.extract_image(xref)
        except Exception:  # an image MuPDF cannot decode is left out, not fatal to the paper
            continue
        if not img or not img.get("image"):
            continue
        sha = sha256_hex(img["image"])
        by_sha[sha] = img["image"]
        meta[xref] = {"sha256": sha, "ext": img.get("ext", "bin"), "width": img.get("width", 0),
                      "height": img.get("height", 0), "pages": []}
    return by_sha, meta


def _mark_title(items: list[_Item], pages, body_size: float) -> None:
    """The largest text in the upper half of page 1 is the title (several blocks may wrap it)."""
    _, h, _ = pages[0]
    first = [it for it in items if it.page == 1 and it.kind not in ("page_marker", "image")]
    top = [it for it in first if it.bbox and it.bbox[1] < h / 2]
    title_size = max((it.size for it in top), default=0)
    if title_size <= body_size * 1.15:
        return
    for it in top:
        if it.size == title_size:
            it.kind = "title"


def _merge_split_paragraphs(items: list[_Item]) -> list[_Item]:
    """Join a paragraph cut by a column or page break ("… the model" | "learns …") into one record,
    skipping the footnotes, floats and page markers that sit between the two halves."""
    out: list[_Item] = []
    for it in items:
        if it.kind == "title" and out and out[-1].kind == "title":
            prev = out[-1]
            prev.text = f"{prev.text} {it.text}"
            prev.bbox = _union(prev.bbox, it.bbox)
            continue
        # An e-mail line under an affiliation starts lowercase too, but is no continuation.
        if it.kind == "paragraph" and it.text[:1].islower() and not _EMAIL.match(it.text):
            for j in range(len(out) - 1, max(-1, len(out) - 10), -1):
                prev = out[j]
                if prev.kind in ("page_marker", "footnote", "caption", "image", "table", "equation"):
                    continue
                if prev.kind == "paragraph" and not _ENDS_SENTENCE.search(prev.text) \
                        and it.page - prev.page <= 1:
                    if re.search(r"[a-z]-$", prev.text):
                        prev.text = prev.text[:-1] + it.text
                    else:
                        prev.text = f"{prev.text} {it.text}"
                    it = None
                break
            if it is None:
                continue
        out.append(it)
    return out


def _sectioned_records(items: list[_Item], image_meta: dict[int, dict]) -> list[TextRecord]:
    """Assign part (front/body/references/appendix) and section; split bibliography entries;
    give stable ids p<page>-r<n>."""
    records: list[TextRecord] = []
    part, section = "front", None
    seen_numbered = False
    implicit_refs = False  # a bibliography found by its entries, not by a heading
    counters: Counter = Counter()

    def add(page: int, kind: str, text: str, bbox, sha: str | None = None) -> None:
        n = counters[page]
        counters[page] += 1
        records.append(TextRecord(f"p{page}-r{n}", page, kind, text, bbox, part, section, sha))

    for it in items:
        if it.kind == "page_marker":
            add(it.page, "page_marker", it.text, None)
            continue
        if it.kind == "image":
            meta = image_meta[it.xref]
            if it.page not in meta["pages"]:
                meta["pages"].append(it.page)
            add(it.page, "image", f"[image {meta['sha256'][:12]}]", it.bbox, meta["sha256"])
            continue
        if it.kind == "heading":
            text = it.text.strip()
            if _REFERENCES_HEADING.match(text):
                part = "references"
            elif part == "references" or (part == "body" and seen_numbered and _APPENDIX_HEADING.match(text)
                                          and not re.match(r"^\d", text)):
                part = "appendix"
            elif part == "front" and not re.match(r"^abstract\b", text, re.I) and (
                    it.page > 1 or _NUMBERED_HEADING.match(text) or _NAMED_HEADING.match(text)):
                part = "body"
            seen_numbered = seen_numbered or bool(re.match(r"^\d+(\.\d+)*\.?\s", text))
            section = text[:120]
            add(it.page, "heading", it.text, it.bbox)
            continue
        if part in ("front", "body") and it.kind in ("paragraph", "footnote") \
                and _BIB_ENTRY.match(it.text) and len(_split_references(it.text)) >= 3:
            part, section, implicit_refs = "references", "References", True
        elif implicit_refs and part == "references" and it.kind == "paragraph" \
                and not _BIB_ENTRY.match(it.text):
            part, implicit_refs = "appendix", False
        if part == "references" and it.kind in ("paragraph", "footnote", "equation", "table"):
            for entry in _split_references(it.text):
                prev = _last_reference(records)
                if prev is not None and _continues_reference(records[prev].text, entry):
                    joined = (records[prev].text[:-1] + entry if records[prev].text.endswith("-")
                              else f"{records[prev].text} {entry}")
                    records[prev] = replace(records[prev], text=joined)
                else:
                    add(it.page, "reference", entry, it.bbox)
            continue
        add(it.page, it.kind, it.text, it.bbox)
    return records


_YEAR = re.compile(r"\b(19|20)\d{2}[a-z]?\b")
_ENTRY_START = re.compile(r"^(\[\d{1,3}\]|\d{1,3}\.)\s")


def _last_reference(records: list[TextRecord]) -> int | None:
    for i in range(len(records) - 1, -1, -1):
        if records[i].kind == "reference":
            return i
        if records[i].kind not in ("page_marker", "image"):
            return None
    return None


def _continues_reference(prev: str, fragment: str) -> bool:
    """Whether a bibliography fragment is the rest of the previous entry (cut by a line,
    column or page break) rather than a new entry."""
    if _ENTRY_START.match(fragment):
        return False
    if _ENTRY_START.match(prev):
        return True  # numbered entries: anything without a number continues the last one
    if fragment[:1].islower() or prev.endswith(("-", ",", " and", "&")):
        return True
    year = None
    for year in _YEAR.finditer(prev):
        pass
    # "Authors. 2017." is an entry whose title is still to come.
    return year is None or not prev[year.end():].strip(" .")


def _union(a, b):
    if a is None or b is None:
        return a or b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _looks_like_names(text: str) -> bool:
    tokens = text.replace(",", " , ").split()
    return 2 <= len(tokens) <= 60 and all(_NAME_TOKEN.match(t) for t in tokens)


def _anonymize(records: list[TextRecord]) -> list[dict]:
    """Records a double-blind reviewer must not see: author, affiliation and e-mail lines in the
    front matter, e-mail addresses and author notes on page 1, the acknowledgements section, and
    the demo corpus's "synthetic paper" label."""
    removed: list[dict] = []

    def drop(r: TextRecord, reason: str) -> None:
        removed.append({"record_id": r.id, "reason": reason, "text": r.text})

    in_front = True
    in_ack = False
    for r in records:
        if r.kind in ("page_marker", "title", "image"):
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
        elif r.page == 1 and r.kind == "footnote" and _AUTHOR_NOTE.search(r.text):
            drop(r, "author note")
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
    severity: str = "error"


def latest_versions(log: EventLog) -> dict[str, PaperIngested]:
    """The newest `paper_ingested` event of every paper, by paper id."""
    latest: dict[str, PaperIngested] = {}
    for ev in log.iter_events("paper_ingested"):
        # ULIDs sort by creation time, so the largest id is the newest version.
        if ev.paper_id not in latest or ev.event_id > latest[ev.paper_id].event_id:
            latest[ev.paper_id] = ev
    return latest


def ingest_pdf(log: EventLog, path: Path, paper_id: str | None = None, venue: str | None = None,
               is_synthetic: bool = False, max_pages: int | None = None,
               max_images: int | None = None, record_rejection: bool = True,
               versions: dict[str, PaperIngested] | None = None) -> IngestOutcome:
    """Ingest one PDF as a new paper version; never raises for bad input (status "rejected",
    recorded as an `ingest_rejected` event). A batch passes one `latest_versions(log)` dict as
    `versions` (kept up to date here) instead of re-reading the log for every file."""
    path = Path(path)
    pid = paper_id or path.stem
    content_sha = None

    def reject(why: str, severity: str = "error") -> IngestOutcome:
        reason = f"{path}: {why}"
        if record_rejection:
            log.append(IngestRejected(source="pdf", path=str(path), reason=reason, severity=severity,
                                      paper_id=pid, content_sha256=content_sha))
        return IngestOutcome("rejected", pid, path, None, reason, severity)

    try:
        data = path.read_bytes()
    except OSError as exc:
        return reject(f"cannot be read ({exc.strerror or exc})")
    content_sha = pdf_sha = sha256_hex(data)
    if versions is None:
        versions = latest_versions(log)
    latest = versions.get(pid)
    if latest is not None and latest.pdf_sha256 == pdf_sha:
        return IngestOutcome("unchanged", pid, path, latest, None)
    try:
        package, images = extract_package(
            data, max_pages=settings.ingest_max_pages() if max_pages is None else max_pages,
            max_images=settings.ingest_max_images() if max_images is None else max_images)
    except ManuscriptError as exc:
        return reject(str(exc), exc.severity)
    for blob in images.values():
        log.blobs.put(blob)
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
        n_images=package.n_images,
        body_chars=package.part_chars("front", "body"),
        appendix_chars=package.part_chars("appendix"),
        references_chars=package.part_chars("references"),
        n_references=len(package.references),
        n_sections=len(package.sections),
    )
    log.append(event)
    versions[pid] = event
    return IngestOutcome("new_version" if latest else "ingested", pid, path, event, None)


def load_package(blobs: BlobStore, package_sha256: str, check_images: bool = True) -> ManuscriptPackage:
    """The package stored under this hash; the blob store re-checks its hash and, unless told
    not to, every image's hash (a missing or altered image raises BlobCorrupted)."""
    package = ManuscriptPackage.from_json(blobs.get_text(package_sha256))
    if check_images:
        for img in package.images:
            if not blobs.exists(img["sha256"]):
                raise BlobCorrupted(f"image {img['sha256']} of package {package_sha256} is missing")
            blobs.get(img["sha256"])
    return package


def image_bytes(blobs: BlobStore, sha256: str) -> bytes:
    """One extracted image (hash re-checked)."""
    return blobs.get(sha256)


def iter_pdfs(paths: list[Path]) -> list[Path]:
    """Files as given, folders expanded to their *.pdf files (sorted, not recursive)."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(q for q in p.iterdir() if q.suffix.lower() == ".pdf") if p.is_dir() else [p])
    return out
