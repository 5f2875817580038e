"""Replace one text record's paragraph in a PDF, in place (the contradiction benchmark's edit).

The source paper edits a paper's LaTeX and recompiles; our papers are PDFs, so the edit is made on the page:
the record's box is redacted (its text removed, the page's other content kept) and the new text is
set into the same box, the font shrunk until it fits. Only a record that is exactly the text blocks
inside its box can be replaced: a paragraph joined across a column or page break has a box that
covers other text, which the redaction would wipe (`replaceable` says why not).

Pure pymupdf; the same block reader as ingest (`pdf_layout.text_blocks`), so "the blocks in the box"
means what the extractor saw. Whether the edit survived is for the caller to check by re-extracting
(`same_text`: whitespace and hyphens ignored, as line breaking moves both).
"""

import html
import re
from collections import Counter

import pymupdf

from peerlake.ingest.pdf_layout import text_blocks

RENDERER = "pymupdf-redact-htmlbox-1"  # bump when the rendering changes: it is part of a variant's identity
_TOLERANCE_PT = 1.0  # block boxes are rounded to 0.1 pt; a block "inside" may poke out by rounding
_IGNORED = re.compile(r"[\s\-‐‑­]+")  # whitespace, ASCII and Unicode hyphens, soft hyphen


def normalized(text: str) -> str:
    """`text` without whitespace or hyphens: equal for a paragraph and its re-wrapped, re-hyphenated
    rendering (ingest joins "low-" + "resource" at a line end into "lowresource")."""
    return _IGNORED.sub("", text)


def same_text(a: str, b: str) -> bool:
    return normalized(a) == normalized(b)


def contains_text(haystack: str, needle: str) -> bool:
    return bool(normalized(needle)) and normalized(needle) in normalized(haystack)


def _inside(inner, outer) -> bool:
    t = _TOLERANCE_PT
    return (inner[0] >= outer[0] - t and inner[1] >= outer[1] - t and inner[2] <= outer[2] + t
            and inner[3] <= outer[3] + t)


def _overlaps(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > _TOLERANCE_PT and min(a[3], b[3]) - max(a[1], b[1]) > _TOLERANCE_PT


def _blocks_in(page: pymupdf.Page, bbox) -> tuple[list, list]:
    """(blocks inside the box, blocks that overlap it without being inside)."""
    inside, crossing = [], []
    for b in text_blocks(page):
        if _inside(b.bbox, bbox):
            inside.append(b)
        elif _overlaps(b.bbox, bbox):
            crossing.append(b)
    return inside, crossing


def replaceable(doc: pymupdf.Document, page_no: int, bbox, text: str) -> str | None:
    """None when the record (1-based page, box, text) can be replaced in place; else why not."""
    if bbox is None or not 1 <= page_no <= doc.page_count:
        return "no_box"
    inside, crossing = _blocks_in(doc[page_no - 1], bbox)
    if crossing:
        return "box_crosses_other_text"
    if not same_text(" ".join(b.text for b in inside), text):
        return "box_holds_other_text"  # joined across a page or column, or shares its box
    return None


def _font_size(page: pymupdf.Page, bbox) -> float:
    """The most common span size (by characters) inside the box: the paragraph's body size."""
    sizes: Counter = Counter()
    for b in _blocks_in(page, bbox)[0]:
        sizes.update(b.chars)
    return float(sizes.most_common(1)[0][0]) if sizes else 10.0


def replace_text(pdf_bytes: bytes, page_no: int, bbox, new_text: str) -> bytes:
    """The PDF with the text in `bbox` on page `page_no` (1-based) replaced by `new_text`, set in a
    serif face at the paragraph's size and scaled down until it fits the box. Raises ValueError when it
    cannot fit even scaled down (MuPDF's Story gives up)."""
    doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    try:
        page = doc[page_no - 1]
        rect = pymupdf.Rect(bbox)
        size = _font_size(page, bbox)
        page.add_redact_annot(rect, fill=(1, 1, 1))
        # Keep images and vector graphics (rules, table lines) that touch the box: only text goes.
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE)
        css = f"* {{font-family: serif; font-size: {size:.1f}pt; text-align: justify; margin: 0; padding: 0}}"
        spare, _scale = page.insert_htmlbox(rect, html.escape(" ".join(new_text.split())), css=css, scale_low=0)
        if spare < 0:
            raise ValueError("the new text does not fit the paragraph's box")
        return doc.tobytes(garbage=3, deflate=True)
    finally:
        doc.close()


def rewritable(pdf_bytes: bytes, records) -> set[str]:
    """The ids of the records (TextRecord-like: id, page, bbox, text) that `replace_text` can replace in
    place (about 10 ms a record: the page's blocks are read once per record)."""
    doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    try:
        return {r.id for r in records if replaceable(doc, r.page, r.bbox, r.text) is None}
    finally:
        doc.close()
