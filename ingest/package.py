"""The manuscript package: the contract between ingest and every reader of a paper.

A package is typed text records in reading order (with page, part and section), the images they
name, and what anonymization removed. It is stored as canonical JSON in a content-addressed blob
named on the `paper_ingested` event; `load_package` re-checks that hash and every image's. This
module imports no PDF library, so readers (reviewers, judges) load packages without paying for one.
"""

import dataclasses
import json
import re
from dataclasses import dataclass, field

from peerlake.warehouse.blobs import BlobCorrupted, BlobStore

# Bump when record extraction or anonymization changes: packages from older code stay readable,
# and the version says which rules produced them. 3: an image is its raw PDF stream, named by the
# SHA-256 of those bytes and decoded only when read (ingest/images.py); 2 stored MuPDF's decoded and
# re-encoded image (a PNG unless the PDF held a JPEG) under that PNG's hash. A lake keeps its version-2
# packages: re-ingesting the same PDF is a no-op, so no paper changes identity unless new bytes come.
PACKAGE_VERSION = 3

TRUNCATION_NOTE = "[… truncated …]"


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
    extractor: str  # which code read the source: "pymupdf-<version>/records-v<n>", "asap-…"
    removed: list[dict] = field(default_factory=list)  # {record_id, reason, text} hidden from review_text
    package_version: int = PACKAGE_VERSION
    # {sha256, ext, width, height, pages}: the blob under sha256 is the image as a reader gets it (v2), or
    # (v3, with filter, pdf_sha256, xref) the raw stream of object xref of that PDF, decoded to `ext` on read.
    images: list[dict] = field(default_factory=list)
    n_furniture: int = 0  # running headers, footers and page numbers left out of the records
    # Records whose text the rendered page does not show ({record_id, reason}: white_text, tiny_text,
    # invisible_text, off_page; ingest.hidden_text). They stay in the records — a text-layer reader
    # sees them, which is the attack — and `without_hidden()` is the defence's view.
    hidden: list[dict] = field(default_factory=list)

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

    @property
    def n_hidden_records(self) -> int:
        return len(self.hidden)

    def without_hidden(self) -> "ManuscriptPackage":
        """The package as the rendered pages show it: the records flagged hidden left out."""
        if not self.hidden:
            return self
        gone = {h["record_id"] for h in self.hidden}
        kept = [r for r in self.records if r.id not in gone]
        return dataclasses.replace(self, records=kept, n_chars=sum(len(r.text) for r in kept), hidden=[])

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), so equal packages give equal blob hashes. An empty `hidden`
        list is left out, so a package with nothing hidden hashes as it did before the check existed."""
        # asdict's deep copy of every record cost as much as the encoding; the encoder only reads, and
        # fields hold JSON types already (a record's fields read as vars(); a bbox tuple encodes as a list).
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["records"] = [vars(r) for r in self.records]
        if not d["hidden"]:
            del d["hidden"]
        return json.dumps(d, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

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
        return fit_text(text, max_chars)


def base_of(paper_id: str) -> str:
    """The paper an experiment's variant was made from (its id up to "~", see ingest.variants); a paper
    that is no variant is its own base."""
    return paper_id.split("~", 1)[0]


def fit_text(text: str, max_chars: int, note: str = TRUNCATION_NOTE) -> str:
    """`text` cut to at most `max_chars`, with a visible note when cut. It ends on a word boundary when
    one is near, so a model never sees half a token."""
    if len(text) <= max_chars:
        return text
    room = max(0, max_chars - len(note) - 1)
    cut = text[:room]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space > room - 80:
        cut = cut[:space]
    return f"{cut.rstrip()}\n{note}"


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
    """One image's stored bytes (hash re-checked): a version-2 package's decoded image, a version-3
    package's raw PDF stream (llm_calls.images.figure_source decodes it)."""
    return blobs.get(sha256)
