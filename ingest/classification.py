"""What each text block is (heading, caption, table, footnote, furniture …) and where it sits
(front matter, body, references, appendix; under which section heading).

Pure functions of layout blocks: no PDF is opened here. Extraction feeds them the blocks of every
page in reading order and gets back `TextRecord`s with stable ids `p<page>-r<n>`.
"""

import re
from collections import Counter
from dataclasses import dataclass, replace

from peerlake.ingest.package import TextRecord
from peerlake.ingest.pdf_layout import Block

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
_NUMBER = re.compile(r"[-+±]?\d+([.,]\d+)?%?")  # a table cell
_REF_NUMBERED = re.compile(r"(?:^|\s)(?=\[\d+\]\s)|(?:^|(?<=\.\s))(?=\d{1,3}\.\s+[A-Z])")
# A numbered bibliography with no heading (Nature/Sci. Rep. style): "1. Nielsen, M. A. & …"
_BIB_ENTRY = re.compile(r"^(\[\d{1,3}\]|\d{1,3}\.)\s+[A-Z][\w'’-]+,?\s+([A-Z]\.[\s-]*)+")


@dataclass
class Item:
    """A block on its way to a record: kind and text are still refined (title marking, joining
    paragraphs split by a column or page break) before sections are assigned."""

    page: int
    kind: str
    text: str
    bbox: tuple | None
    size: float = 0.0
    xref: int = 0


def is_furniture(b: Block, page_h: float, repeated: set[str]) -> bool:
    """Running headers, footers and page numbers: in the top/bottom margin, or repeated on pages."""
    if b.kind != "text" or len(b.text) > 200:
        return False
    in_margin = b.bbox[3] < 0.07 * page_h or b.bbox[1] > 0.925 * page_h
    return in_margin or furniture_key(b.text) in repeated


def furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def block_kind(b: Block, body_size: float, page_h: float) -> str:
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
    letters = sum(map(str.isalpha, text))  # per character, as a generator did, at half its cost
    if len(text) >= 6 and letters / len(text) < 0.45:
        return "equation" if b.n_lines <= 3 else "table"
    words = text.split()
    numeric = sum(bool(_NUMBER.fullmatch(w)) for w in words)
    if b.n_lines >= 3 and words and numeric / len(words) > 0.3:
        return "table"
    return "paragraph"


def _split_references(text: str) -> list[str]:
    """One block of a bibliography may hold several numbered entries ("[1] …", "12. …")."""
    parts = [p.strip() for p in _REF_NUMBERED.split(text) if p and p.strip()]
    return parts or [text]


def sectioned_records(items: list[Item], image_meta: dict[int, dict]) -> list[TextRecord]:
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
    years = list(_YEAR.finditer(prev))
    year = years[-1] if years else None
    # "Authors. 2017." is an entry whose title is still to come.
    return year is None or not prev[year.end():].strip(" .")
