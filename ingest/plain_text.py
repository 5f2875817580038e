"""Plain-text and markdown papers (no PDF: PRISM's GROBID text, a `.md`/`.mmd` conversion) → a
manuscript package with no pages.

Every non-blank line is one paragraph record (markdown `#` lines are headings); the part is `body`
until a "References"/"Bibliography" heading line, then `references`, and `appendix` after an
"Appendix" heading. `n_pages` is 0 and `pdf_sha256` is the SHA-256 of the text file's bytes, as
for ASAP-Review's parsed papers: there is no rendered page to cite or to hide text on.
"""

import re

from peerlake.ingest.package import ManuscriptError, ManuscriptPackage, TextRecord

EXTRACTOR = "plain-text/records-v1"
TEXT_SUFFIXES = (".txt", ".md", ".mmd")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_REFERENCES = re.compile(r"^(references|bibliography)\s*$", re.I)
_APPENDIX = re.compile(r"^(appendix|appendices|supplementary material)\b", re.I)


def text_package(text: str, source_sha256: str, title: str | None = None,
                 abstract: str | None = None) -> ManuscriptPackage:
    """The package of one plain-text paper; ManuscriptError when it holds no text."""
    if "\x00" in text:
        raise ManuscriptError("holds NUL bytes: not a text file (give a PDF to `peerlake ingest pdf`)")
    records: list[TextRecord] = []
    part, section = "body", None

    def add(kind: str, body: str, where: str) -> None:
        records.append(TextRecord(f"t-r{len(records)}", 0, kind, body, None, where, section))

    if title and title.strip():
        add("title", title.strip(), "front")
    if abstract and abstract.strip():
        section = "Abstract"
        add("heading", "Abstract", "front")
        add("paragraph", re.sub(r"\s+", " ", abstract.strip()), "front")
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        m = _HEADING.match(line)
        heading = m.group(1) if m else (line if _REFERENCES.match(line) else None)
        if heading:
            if _REFERENCES.match(heading):
                part = "references"
            elif _APPENDIX.match(heading):
                part = "appendix"
            section = heading
            add("heading", heading, part)
        else:
            add("reference" if part == "references" else "paragraph", line, part)
    if not any(r.kind in ("paragraph", "reference") for r in records):
        raise ManuscriptError("has no text")
    found_title = next((r.text for r in records if r.kind == "title"), None)
    return ManuscriptPackage(pdf_sha256=source_sha256, title=found_title or "", n_pages=0,
                             n_chars=sum(len(r.text) for r in records), records=records, extractor=EXTRACTOR)
