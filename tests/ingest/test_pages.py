"""Page renders of an ingested PDF: PNG blobs under their own hash, the same hash every time."""

import hashlib
import struct

import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.pages import PageRenderError, page_images, render_pages
from peerlake.ingest.papers import ingest_pdf

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    # The IHDR chunk follows the 8-byte signature: length (4), "IHDR" (4), width (4), height (4).
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def demo_pdf(log):
    path = next(p for p in demo_papers() if p.name == "demo-001.pdf")
    event = ingest_pdf(log, path).event
    return event.pdf_sha256, path


def test_a_page_renders_to_a_png_blob_named_by_its_hash(log, demo_pdf):
    import pymupdf

    pdf_sha, path = demo_pdf
    [sha] = render_pages(log.blobs, pdf_sha, [1], dpi=72)
    data = log.blobs.get(sha)
    assert data.startswith(PNG_SIGNATURE) and hashlib.sha256(data).hexdigest() == sha
    # At 72 DPI one pixel is one PDF point, so the PNG is the page's size in points (rounded).
    with pymupdf.open(path) as doc:
        rect = doc[0].rect
    assert _png_size(data) == (round(rect.width), round(rect.height))
    # Twice the DPI, twice the pixels each way (± 1 for rounding).
    [big] = render_pages(log.blobs, pdf_sha, [1], dpi=144)
    w, h = _png_size(log.blobs.get(big))
    assert abs(w - 2 * round(rect.width)) <= 1 and abs(h - 2 * round(rect.height)) <= 1


def test_rendering_again_gives_the_same_blobs_and_writes_nothing_new(log, demo_pdf):
    pdf_sha, _ = demo_pdf
    first = render_pages(log.blobs, pdf_sha, [1, 2])
    files = sorted(p.name for p in log.blobs.iter_all())
    again = render_pages(log.blobs, pdf_sha, [2, 1])
    assert again == first[::-1] and len(set(first)) == 2  # two different pages, in the order asked
    assert sorted(p.name for p in log.blobs.iter_all()) == files
    assert page_images(log.blobs, pdf_sha, [1]) == [{"sha256": first[0], "media_type": "image/png"}]


def test_a_missing_pdf_or_page_is_a_clear_error(log, demo_pdf):
    pdf_sha, _ = demo_pdf
    with pytest.raises(PageRenderError, match=r"page\(s\) \[3\] outside the PDF's 1-2"):
        render_pages(log.blobs, pdf_sha, [1, 3])
    with pytest.raises(PageRenderError, match="not in the blob store"):
        render_pages(log.blobs, "0" * 64, [1])
    with pytest.raises(PageRenderError, match="dpi"):
        render_pages(log.blobs, pdf_sha, [1], dpi=5)
