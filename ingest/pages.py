"""Page renders of an ingested PDF, as PNG blobs: what a reviewer system sends a model that reads
images (llm_calls/images.py has the message contract).

Ingest keeps the original PDF bytes as a blob under the `pdf_sha256` its `paper_ingested` event
(and the package) names; a page render is a pure function of those bytes, the page and the DPI, so
rendering again gives the same PNG under the same hash (content-addressed: stored once).
"""

from collections.abc import Iterable

from peerlake.warehouse.blobs import BlobStore

# 100 DPI: a US-letter page is 850 x 1100 px, about the 768-px short side OpenAI's high-detail mode
# scales a page to, and small print stays legible. (our default)
DEFAULT_DPI = 100
MEDIA_TYPE = "image/png"


class PageRenderError(ValueError):
    """The PDF is not in the blob store, or a page number is outside it."""


def render_pages(blobs: BlobStore, pdf_sha256: str, pages: Iterable[int], dpi: int = DEFAULT_DPI) -> list[str]:
    """PNG blob hashes of the given 1-based `pages` of the stored PDF, in the order asked."""
    import pymupdf  # 0.75 s to import: only when a system asks for page images

    pages = list(pages)
    if dpi < 18 or dpi > 600:
        raise PageRenderError(f"dpi {dpi} outside 18-600")
    if not blobs.exists(pdf_sha256):
        raise PageRenderError(f"PDF {pdf_sha256[:12]} is not in the blob store (ingested before PDFs were kept? "
                              "re-ingest the file)")
    with pymupdf.open(stream=blobs.get(pdf_sha256), filetype="pdf") as doc:
        bad = [p for p in pages if not 1 <= p <= doc.page_count]
        if bad:
            raise PageRenderError(f"page(s) {bad} outside the PDF's 1-{doc.page_count}")
        return [blobs.put(doc[p - 1].get_pixmap(dpi=dpi).tobytes("png")) for p in pages]


def page_images(blobs: BlobStore, pdf_sha256: str, pages: Iterable[int], dpi: int = DEFAULT_DPI) -> list[dict]:
    """The renders as a message's `images` entries ({"sha256", "media_type"})."""
    return [{"sha256": sha, "media_type": MEDIA_TYPE} for sha in render_pages(blobs, pdf_sha256, pages, dpi)]
