"""What a reviewer system reads of a manuscript package: the body up to a page limit, the appendix,
the parts a first pass reads, figure and table captions. Text only, in reading order, with
`[page N]` markers, anonymized like ManuscriptPackage.review_text (removed records stay hidden)."""

from dataclasses import dataclass

from peerlake.ingest.package import fit_text as fit  # noqa: F401  (the systems cut their texts with manuscript.fit)

# The parts of a package (ingest.package.TextRecord.part) and what each split puts where.
BODY_PARTS = ("front", "body")


@dataclass(frozen=True)
class Split:
    """A manuscript split into the body a reviewer reads deeply (at most `max_pages` pages) and the
    appendix an agent summarizes. Body pages past the limit go to neither: `cut_pages` says how many."""

    body: str
    appendix: str
    references: str
    body_pages: tuple[int, ...]
    cut_pages: int


def _visible(package):
    hidden = {r["record_id"] for r in package.removed}
    return [r for r in package.records if r.id not in hidden and r.kind not in ("image",)]


def _render(records) -> str:
    out, page = [], None
    for r in records:
        if r.kind == "page_marker":
            continue
        if r.page != page:
            out.append(f"\n[page {r.page}]")
            page = r.page
        out.append(f"\n{r.text}" if r.kind in ("title", "heading") else r.text)
    return "\n".join(out).strip()


def split(package, max_pages: int = 10) -> Split:
    """Body = front matter and body on the first `max_pages` pages that hold body text; appendix =
    the appendix part (whatever its pages); references apart. The split point is the package's
    own part labels (ingest classifies References / Appendix headings)."""
    records = [r for r in _visible(package) if r.kind != "page_marker"]
    body_pages = sorted({r.page for r in records if r.part in BODY_PARTS})
    kept = set(body_pages[:max_pages])
    body = [r for r in records if r.part in BODY_PARTS and r.page in kept]
    return Split(body=_render(body), appendix=_render([r for r in records if r.part == "appendix"]),
                 references=_render([r for r in records if r.part == "references"]),
                 body_pages=tuple(sorted(kept)), cut_pages=max(0, len(body_pages) - max_pages))


def first_pages(package, n: int = 10, parts: tuple[str, ...] = ("front", "body", "references", "appendix")) -> list:
    """The visible text records on the first `n` pages of the PDF (any part named), in reading order."""
    return [r for r in _visible(package) if r.kind != "page_marker" and r.page <= n and r.part in parts]


def captions(records) -> list[str]:
    """Figure and table captions among the records (and tables' own text as a fallback caption)."""
    return [r.text for r in records if r.kind == "caption"]


def abstract(package) -> str:
    """The abstract: front-matter records under an 'Abstract' heading (or none)."""
    recs = [r for r in _visible(package) if r.part == "front" and r.kind not in ("page_marker", "heading", "title")
            and (r.section or "").lower().startswith("abstract")]
    return "\n".join(r.text for r in recs).strip()


def sections_named(package, *prefixes: str) -> str:
    """The body text of the sections whose heading starts with one of the prefixes (case-insensitive,
    numbering ignored), e.g. sections_named(p, "introduction", "conclusion")."""
    wanted = tuple(p.lower() for p in prefixes)

    def hit(section: str | None) -> bool:
        name = (section or "").lower().lstrip("0123456789. ").strip()
        return name.startswith(wanted)

    return _render([r for r in _visible(package) if r.kind != "page_marker" and r.part in BODY_PARTS
                    and hit(r.section)])
