"""PDF bytes → a manuscript package and its image bytes.

The package is a pure function of the PDF bytes (no paper id, no clock), so the same bytes always
give the same package blob. Each distinct image is returned once, as the raw stream the PDF holds,
under the SHA-256 of those bytes; it is decoded only when a reader asks (ingest/images.py).
"""

import re
from collections import Counter

import pymupdf

from peerlake.ingest.anonymization import EMAIL, anonymize
from peerlake.ingest.classification import Item, block_kind, furniture_key, is_furniture, sectioned_records
from peerlake.ingest.images import stored_images
from peerlake.ingest.package import PACKAGE_VERSION, ManuscriptError, ManuscriptPackage
from peerlake.ingest.pdf_layout import TEXT_FLAGS, Block, image_blocks, image_info_once, reading_order, text_blocks
from peerlake.warehouse.blobs import sha256_hex

EXTRACTOR = f"pymupdf-{pymupdf.VersionBind}/records-v{PACKAGE_VERSION}"
_A0_PT = 3370  # the long side of an A0 sheet: no paper's page is larger
_ENDS_SENTENCE = re.compile(r"[.!?:;)\]”\"']\s*$")


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
        raise ManuscriptError(f"could not be parsed as PDF ({_cause(exc)})") from None
    try:
        if doc.needs_pass:
            raise ManuscriptError("is encrypted (needs a password to open)")
        try:  # counting walks the page tree: one that names a page 200,000 times raises here
            n_pages = doc.page_count
        except Exception as exc:
            raise ManuscriptError(f"has a page tree that cannot be read ({_cause(exc)})") from None
        if n_pages == 0:
            raise ManuscriptError("has no pages")
        if max_pages is not None and n_pages > max_pages:
            raise ManuscriptError(f"has {n_pages} pages, over the limit of {max_pages} "
                                  "(PEERLAKE_INGEST_MAX_PAGES)")
    except ManuscriptError:
        doc.close()
        raise
    return doc


def _cause(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text if len(text) <= 300 else text[:300] + '…'}"


def extract_package(pdf_bytes: bytes, max_pages: int | None = None,
                    max_images: int | None = None) -> tuple[ManuscriptPackage, dict[str, bytes]]:
    """Read a PDF into a package and its image bytes by SHA-256; raises ManuscriptError (and only
    that: whatever else MuPDF or the layout code raises on a hostile file is turned into one)."""
    try:
        return _extract(pdf_bytes, max_pages, max_images)
    except ManuscriptError:
        raise
    except Exception as exc:  # RecursionError, MemoryError, a MuPDF error outside a page …
        raise ManuscriptError(f"could not be read ({_cause(exc)})") from None


def _extract(pdf_bytes: bytes, max_pages: int | None,
             max_images: int | None) -> tuple[ManuscriptPackage, dict[str, bytes]]:
    doc = _open_pdf(pdf_bytes, max_pages)
    pdf_sha256 = sha256_hex(pdf_bytes)
    try:
        pages: list[tuple[float, float, list[Block]]] = []
        xrefs: set[int] = set()
        for i, page in enumerate(doc):
            try:
                images = image_info_once(page)
                blocks = text_blocks(page, images) + image_blocks(page, image_info=images)
            except Exception as exc:
                raise ManuscriptError(f"page {i + 1} could not be read ({type(exc).__name__}: {exc})") from None
            xrefs.update(b.xref for b in blocks if b.kind == "image")
            if max_images is not None and len(xrefs) > max_images:
                raise ManuscriptError(f"has more than {max_images} images (at page {i + 1}; "
                                      "PEERLAKE_INGEST_MAX_IMAGES)")
            pages.append((page.rect.width, page.rect.height, reading_order(blocks, page.rect.width)))
        image_bytes, image_meta = stored_images(doc, xrefs, pdf_sha256)
        meta_title = (doc.metadata or {}).get("title") or ""
    finally:
        doc.close()

    sizes: Counter = Counter()
    for _, _, blocks in pages:
        for b in blocks:
            if not b.hidden:  # a page of hidden text in some font must not decide the body size
                sizes.update(b.chars)
    if not sizes:
        raise _no_text(pdf_bytes, pages, n_furniture=0)
    body_size = sizes.most_common(1)[0][0]

    # Text that recurs in the margins of many pages is a running header or footer.
    seen: Counter = Counter()
    for _, h, blocks in pages:
        seen.update({furniture_key(b.text) for b in blocks if b.kind == "text"
                     and (b.bbox[3] < 0.12 * h or b.bbox[1] > 0.88 * h) and len(b.text) < 200})
    repeated = {k for k, n in seen.items() if len(pages) >= 3 and n >= max(3, len(pages) // 2)}

    items: list[Item] = []
    hidden: dict[int, str] = {}  # id(item) -> reason, for the items made of hidden text
    n_furniture = 0
    for pno, (_, h, blocks) in enumerate(pages, start=1):
        items.append(Item(pno, "page_marker", f"[page {pno}]", None))
        for b in blocks:
            if b.kind == "image":
                if b.xref in image_meta:
                    items.append(Item(pno, "image", "", b.bbox, xref=b.xref))
                continue
            if is_furniture(b, h, repeated):
                n_furniture += 1
                continue
            items.append(Item(pno, block_kind(b, body_size, h), b.text, b.bbox, b.size))
            if b.hidden:
                hidden[id(items[-1])] = b.hidden
    _mark_title([it for it in items if id(it) not in hidden], pages, body_size)
    items = _merge_split_paragraphs(items, set(hidden))
    records = sectioned_records(items, image_meta)

    titles = [r.text for r in records if r.kind == "title"]
    title = titles[0] if titles else meta_title.strip() or next(
        (r.text[:200] for r in records if r.kind not in ("page_marker", "image")), "")
    pkg = ManuscriptPackage(
        pdf_sha256=pdf_sha256,
        title=title,
        n_pages=len(pages),
        n_chars=sum(len(r.text) for r in records if r.kind not in ("page_marker", "image")),
        records=records,
        extractor=EXTRACTOR,
        removed=anonymize(records),
        images=sorted(image_meta.values(), key=lambda m: (m["pages"][0], m["sha256"])),
        n_furniture=n_furniture,
        hidden=_hidden_records(records, [(it, hidden[id(it)]) for it in items if id(it) in hidden]),
    )
    hidden_ids = {h["record_id"] for h in pkg.hidden}
    if not any(r.text.strip() for r in records if r.kind not in ("page_marker", "image") and r.id not in hidden_ids):
        raise _no_text(pdf_bytes, pages, n_furniture)
    return pkg, image_bytes


def _no_text(pdf_bytes: bytes, pages, n_furniture: int) -> ManuscriptError:
    """Why a PDF gave no text a reviewer would read; a scan (no text at all) is only a warning,
    text that exists but was clipped, hidden or all taken for page furniture is an error."""
    hidden = sum(len(b.text) for _, _, blocks in pages for b in blocks if b.kind == "text" and b.hidden)
    clipped = _clipped_chars(pdf_bytes)
    causes = []
    if n_furniture:
        causes.append(f"its {n_furniture} text block(s) were all taken for running headers, footers or page "
                      "numbers (in the top 7 % / bottom 7.5 % of a page, or repeated on most pages)")
        w, h = max(((w, h) for w, h, _ in pages), key=lambda wh: wh[0] * wh[1])
        if max(w, h) > _A0_PT:  # on a page this large the margin bands hold whole paragraphs
            causes[-1] += f"; its largest page is {w:,.0f} × {h:,.0f} pt, larger than A0"
    if clipped:
        causes.append(f"{clipped:,} characters lie outside the page's MediaBox and are clipped")
    if hidden:
        causes.append(f"{hidden:,} characters are hidden text (ingest/visibility.py)")
    if not causes:
        return ManuscriptError("has no extractable text layer (a scan? OCR is not supported)", severity="warning")
    return ManuscriptError("has no visible text to review (0 characters): " + "; ".join(causes)
                           + "; nothing was ingested (check the file renders as a paper)")


def _clipped_chars(pdf_bytes: bytes) -> int:
    """Non-space characters MuPDF finds outside the MediaBox of every page (what TEXT_FLAGS drops)."""
    n = 0
    with pymupdf.open(stream=pdf_bytes, filetype="pdf") as doc:
        for page in doc:
            outside = page.get_text("text", flags=0, clip=pymupdf.INFINITE_RECT())
            inside = page.get_text("text", flags=TEXT_FLAGS)
            n += max(0, len("".join(outside.split())) - len("".join(inside.split())))
    return n


def _hidden_records(records, hidden_items: list[tuple[Item, str]]) -> list[dict]:
    """{record_id, reason} of the records made from hidden items: same page and box, and the record's
    text part of the item's (a bibliography item is split into several records)."""
    if not hidden_items:
        return []
    by_place: dict[tuple, list[tuple[Item, str]]] = {}
    for it, reason in hidden_items:
        by_place.setdefault((it.page, it.bbox), []).append((it, reason))
    out = []
    for r in records:
        for it, reason in by_place.get((r.page, r.bbox), ()):
            if r.text and r.text in it.text:
                out.append({"record_id": r.id, "reason": reason})
                break
    return out


def extract_records(pdf_bytes: bytes) -> ManuscriptPackage:
    """Read a PDF into a package of ordered records (images named, not returned)."""
    return extract_package(pdf_bytes)[0]


def _mark_title(items: list[Item], pages, body_size: float) -> None:
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


def _merge_split_paragraphs(items: list[Item], keep: set[int] = frozenset()) -> list[Item]:
    """Join a paragraph cut by a column or page break ("… the model" | "learns …") into one record,
    skipping the footnotes, floats and page markers that sit between the two halves. Items in `keep`
    (ids of hidden text) are never joined with another: hidden and visible text stay apart."""
    out: list[Item] = []
    for it in items:
        if id(it) in keep:
            out.append(it)
            continue
        if it.kind == "title" and out and out[-1].kind == "title":
            prev = out[-1]
            prev.text = f"{prev.text} {it.text}"
            prev.bbox = _union(prev.bbox, it.bbox)
            continue
        # An e-mail line under an affiliation starts lowercase too, but is no continuation.
        if it.kind == "paragraph" and it.text[:1].islower() and not EMAIL.match(it.text):
            for j in range(len(out) - 1, max(-1, len(out) - 10), -1):
                prev = out[j]
                if prev.kind in ("page_marker", "footnote", "caption", "image", "table", "equation"):
                    continue
                if prev.kind == "paragraph" and not _ENDS_SENTENCE.search(prev.text) \
                        and it.page - prev.page <= 1 and id(prev) not in keep:
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


def _union(a, b):
    if a is None or b is None:
        return a or b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
