"""Bad PDFs are set aside as `ingest_rejected` events; the rest of the batch still ingests."""

import pymupdf
import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.manuscripts import ingest_pdf, iter_pdfs

DEMO = demo_papers()


def _image_pdf(n_images: int, with_text: bool = True) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    if with_text:
        # below the top 7 % band: text there alone is a running header, and a paper of 0 characters is rejected
        page.insert_text((72, 60), "A paper whose figures are a mosaic of many small images.", fontsize=10)
    for i in range(n_images):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False)
        pix.set_rect(pix.irect, (i % 256, (i // 256) * 40, 7))  # distinct pixels → distinct images
        x, y = 20 + (i % 20) * 29, 60 + (i // 20) * 29
        page.insert_image(pymupdf.Rect(x, y, x + 28, y + 28), pixmap=pix)
    return doc.tobytes()


def _scan_pdf() -> bytes:
    """A page that is only a picture of text: no text layer at all."""
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 200, 260), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    return doc.tobytes()


def _long_pdf(pages: int) -> bytes:
    doc = pymupdf.open()
    for i in range(pages):
        doc.new_page().insert_text((72, 72), f"Page {i + 1} of a very long thesis.")
    return doc.tobytes()


@pytest.fixture
def batch(tmp_path):
    good = DEMO[0].read_bytes()
    files = {
        "empty.pdf": (b"", "empty (0 bytes)", "error"),
        "notes.pdf": (b"These are my notes, saved with the wrong extension.\n" * 20, "not a PDF", "error"),
        "truncated.pdf": (good[: len(good) // 2], "truncated", "error"),
        "scan.pdf": (_scan_pdf(), "no extractable text layer", "warning"),
        "mosaic.pdf": (_image_pdf(320), "more than 300 images", "error"),
        "thesis.pdf": (_long_pdf(160), "160 pages, over the limit of 150", "error"),
    }
    with pymupdf.open(stream=good, filetype="pdf") as doc:
        files["locked.pdf"] = (doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw",
                                           owner_pw="owner"), "encrypted", "error")
    folder = tmp_path / "inbox"
    folder.mkdir()
    for name, (data, _, _) in files.items():
        (folder / name).write_bytes(data)
    (folder / "zz-good.pdf").write_bytes(good)
    return folder, {folder / n: (why, sev) for n, (_, why, sev) in files.items()}


def test_every_bad_pdf_is_quarantined_and_the_batch_goes_on(log, batch, monkeypatch):
    monkeypatch.delenv("PEERLAKE_INGEST_MAX_PAGES", raising=False)
    monkeypatch.delenv("PEERLAKE_INGEST_MAX_IMAGES", raising=False)
    folder, bad = batch
    outcomes = [ingest_pdf(log, p) for p in iter_pdfs([folder])]  # must not raise
    by_path = {o.path: o for o in outcomes}
    assert by_path[folder / "zz-good.pdf"].status == "ingested"
    for path, (why, severity) in bad.items():
        o = by_path[path]
        assert o.status == "rejected" and why in o.reason and str(path) in o.reason, o
        assert o.severity == severity
    rejected = {e.path: e for e in log.iter_events("ingest_rejected")}
    assert set(rejected) == {str(p) for p in bad}
    for path, (why, severity) in bad.items():
        ev = rejected[str(path)]
        assert ev.source == "pdf" and why in ev.reason and ev.severity == severity
        assert ev.paper_id == path.stem
    assert [e.paper_id for e in log.iter_events("paper_ingested")] == ["zz-good"]


def test_limits_are_configurable(log, tmp_path, monkeypatch):
    pdf = tmp_path / "mosaic.pdf"
    pdf.write_bytes(_image_pdf(12))
    monkeypatch.setenv("PEERLAKE_INGEST_MAX_IMAGES", "10")
    assert "more than 10 images" in ingest_pdf(log, pdf).reason
    monkeypatch.setenv("PEERLAKE_INGEST_MAX_IMAGES", "50")
    ok = ingest_pdf(log, pdf)
    assert ok.status == "ingested" and ok.event.n_images == 12
    long = tmp_path / "long.pdf"
    long.write_bytes(_long_pdf(4))
    assert "4 pages, over the limit of 3" in ingest_pdf(log, long, max_pages=3).reason


def test_duplicate_id_with_new_bytes_is_a_new_version_not_an_error(log, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "paper.pdf", tmp_path / "b" / "paper.pdf"
    first.write_bytes(DEMO[0].read_bytes())
    second.write_bytes(DEMO[1].read_bytes())
    assert [ingest_pdf(log, p).status for p in (first, second, second)] == [
        "ingested", "new_version", "unchanged"]
    assert not list(log.iter_events("ingest_rejected"))
    versions = [e for e in log.iter_events("paper_ingested") if e.paper_id == "paper"]
    assert len(versions) == 2 and versions[0].pdf_sha256 != versions[1].pdf_sha256
