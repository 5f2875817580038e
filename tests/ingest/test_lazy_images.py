"""Package version 3 keeps each image as the PDF's raw stream and decodes it only when read (#50): ingest
decodes nothing; a reader gets the very bytes version 2 stored; a hostile image (damaged stream, absurd
size) is ingested with the rest of its paper and fails only when read, naming paper, page and image."""

import hashlib
import json
import zlib
from pathlib import Path

import pymupdf
import pytest

from peerlake.ingest.manuscripts import extract_package, ingest_pdf, load_package
from peerlake.llm_calls import images as llm_images
from peerlake.llm_calls.gateway import Gateway, LlmCallFailed
from peerlake.llm_calls.images import FigureUnreadable, figure_source, fit_figures, with_image_data
from peerlake.llm_calls.types import LlmRequest
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, llm_events, providers_for

# Made by version 2's extract_package before this change (so not by the code under test), with pymupdf 1.28.2.
V2 = json.loads(Path(__file__).with_name("package_v2_images.json").read_text())


@pytest.fixture
def decodes(monkeypatch):
    """Every image decode in this process: MuPDF's extract_image (version 2's ingest path) and Pixmap."""
    calls: list[str] = []
    extract, pixmap = pymupdf.Document.extract_image, pymupdf.Pixmap.__init__

    def counted_extract(doc, xref):
        calls.append(f"extract_image {xref}")
        return extract(doc, xref)

    def counted_pixmap(pix, *args, **kw):
        calls.append("Pixmap")
        return pixmap(pix, *args, **kw)

    monkeypatch.setattr(pymupdf.Document, "extract_image", counted_extract)
    monkeypatch.setattr(pymupdf.Pixmap, "__init__", counted_pixmap)
    monkeypatch.setattr(llm_images, "_RENDERED", {})  # no figure drawn by an earlier test
    return calls


def _request(paper_id: str, images: list[dict]) -> LlmRequest:
    return LlmRequest(provider="anthropic", model="claude-haiku-4-5", subject_id=paper_id,
                      messages=({"role": "user", "content": "Rate this paper.", "images": images},))


def test_ingest_decodes_no_image_and_a_reader_decodes_each_once_when_it_asks(log, shared, decodes):
    path = shared("cc_by_pdfs", "acl2020_main447_S2ORC.pdf")  # 4 Flate figures, 1.76 MB as version 2's PNGs
    ev = ingest_pdf(log, path, paper_id="s2orc").event
    package = load_package(log.blobs, ev.package_sha256)  # re-hashes every image blob
    assert package.package_version == 3 and ev.n_images == 4
    assert decodes == []
    with pymupdf.open(path) as doc:  # each blob is the object's stream as the PDF holds it, hashed as is
        for img in package.images:
            raw = doc.xref_stream_raw(img["xref"])
            assert log.blobs.get(img["sha256"]) == raw and hashlib.sha256(raw).hexdigest() == img["sha256"]
            assert img["pdf_sha256"] == ev.pdf_sha256 and img["filter"] == "/FlateDecode"

    figures = fit_figures("anthropic", "claude-haiku-4-5", package.images, text_bytes=1000).images
    assert [f["xref"] for f in figures] == [i["xref"] for i in package.images]
    sent = with_image_data(_request("s2orc", figures), log.blobs)  # what the gateway hands the provider
    assert sum(c.startswith("extract_image") for c in decodes) == 4
    assert all(img["data"] for img in sent.messages[0]["images"])
    before = len(decodes)
    with_image_data(_request("s2orc", figures), log.blobs)  # the k samples of one paper: drawn once
    assert len(decodes) == before


@pytest.mark.parametrize("name", sorted(V2["papers"]))
def test_a_reader_gets_the_bytes_version_2_stored(log, shared, name):
    """The lazy path's bytes are version 2's stored image, byte for byte (its PNG, or the PDF's own JPEG),
    and the entries' ext, size and pages are version 2's; only the name changed (kept for 7 of 37 JPEGs)."""
    if pymupdf.VersionBind != V2["pymupdf"]:
        pytest.skip(f"version 2's bytes were recorded with pymupdf {V2['pymupdf']}; MuPDF's PNG encoder may differ")
    data = shared("cc_by_pdfs", name).read_bytes()
    package, stored = extract_package(data)
    log.blobs.put(data)
    for blob in stored.values():
        log.blobs.put(blob)
    by_sha = {img["sha256"]: img for img in package.images}
    order = [r.image_sha256 for r in package.records if r.kind == "image"]
    v2 = V2["papers"][name]
    assert [hashlib.sha256(figure_source(log.blobs, by_sha[s])).hexdigest() for s in order] == v2["reading_order"]
    v2_by_sha = {img["sha256"]: img for img in v2["images"]}
    fields = ("ext", "width", "height", "pages")
    assert [{f: by_sha[s][f] for f in fields} for s in order] == \
        [{f: v2_by_sha[s][f] for f in fields} for s in v2["reading_order"]]


def _hostile_pdf() -> bytes:
    """One page of text and four figures: a sound one, a Flate stream of garbage, a JPEG of garbage and a
    100,000 x 100,000 px image whose stream is 1 KB (decoded: 30 GB)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=1100)
    page.insert_text((72, 140), "A paper whose figures are mostly hostile.", fontsize=11)
    for i in range(4):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40 + i, 30))
        pix.set_rect(pix.irect, (200, 40 * i, 90))
        page.insert_image(pymupdf.Rect(72, 160 + 200 * i, 272, 340 + 200 * i), pixmap=pix)
    _sound, flate, jpeg, huge = sorted(x[0] for x in page.get_images(full=True))
    for xref, stream, flt in ((flate, b"\x78\x9cnot really zlib data" * 20, "/FlateDecode"),
                              (jpeg, b"\xff\xd8\xff\xe0garbage jpeg" * 20, "/DCTDecode"),
                              (huge, zlib.compress(b"\0" * 1000), "/FlateDecode")):
        doc.update_stream(xref, stream, compress=False)
        doc.xref_set_key(xref, "Filter", flt)
    doc.xref_set_key(huge, "Width", "100000")
    doc.xref_set_key(huge, "Height", "100000")
    return doc.tobytes()


def test_a_hostile_image_is_ingested_and_fails_when_read_naming_paper_page_and_image(log, tmp_path, decodes):
    path = tmp_path / "hostile.pdf"
    path.write_bytes(_hostile_pdf())
    decodes.clear()  # making the file drew its figures
    outcome = ingest_pdf(log, path)
    assert outcome.status == "ingested", outcome.reason
    package = load_package(log.blobs, outcome.event.package_sha256)
    assert "hostile" in package.review_text(10_000) and decodes == []
    sound, flate, jpeg, huge = sorted(package.images, key=lambda i: i["xref"])
    assert (huge["width"], huge["height"]) == (100_000, 100_000)

    assert pymupdf.Pixmap(figure_source(log.blobs, sound, "hostile")).width == 40  # the sound one reads
    named = r"paper hostile, page 1: image {} \(object {} of PDF {}\)"
    for img, why in ((flate, "its stream is damaged .*zlib error"),
                     (huge, "declares 100,000 x 100,000 px, over the 50,000,000-pixel limit")):
        with pytest.raises(FigureUnreadable, match=named.format(img["sha256"][:12], img["xref"],
                                                                img["pdf_sha256"][:12]) + ".*" + why):
            figure_source(log.blobs, img, "hostile")
    assert not any(c == f"extract_image {huge['xref']}" for c in decodes)  # refused before decoding
    # The JPEG's bytes pass extract_image untouched; drawing them for a request is what fails.
    entry = {"sha256": jpeg["sha256"], "media_type": "image/png", "width": 41, "height": 30, "max_bytes": 10 ** 6,
             "pdf_sha256": jpeg["pdf_sha256"], "xref": jpeg["xref"], "page": 1}
    with pytest.raises(FigureUnreadable, match=named.format(jpeg["sha256"][:12], jpeg["xref"],
                                                            jpeg["pdf_sha256"][:12]) + " cannot be drawn .*jpeg"):
        with_image_data(_request("hostile", [entry]), log.blobs)


def test_a_stored_stream_that_no_longer_matches_its_name_is_refused(log, shared):
    """The entry's PDF and object are checked against the image's name before anything is decoded."""
    data = shared("cc_by_pdfs", "naacl2018_N18-3011_LiteratureGraph.pdf").read_bytes()
    package, _ = extract_package(data)
    log.blobs.put(data)
    [img] = package.images
    with pytest.raises(FigureUnreadable, match=rf"object {img['xref'] + 1} .* does not hash to the image's sha256"):
        figure_source(log.blobs, {**img, "xref": img["xref"] + 1}, "lit-graph")


def test_a_call_whose_figure_cannot_be_decoded_fails_once_and_its_event_names_the_image(log, tmp_path, monkeypatch):
    """Through the gateway: nothing reaches the provider, the error is recorded on the call's event, no retry."""
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(llm_images, "_RENDERED", {})
    path = tmp_path / "hostile.pdf"
    path.write_bytes(_hostile_pdf())
    package = load_package(log.blobs, ingest_pdf(log, path).event.package_sha256)
    flate = sorted(package.images, key=lambda i: i["xref"])[1]
    [entry] = fit_figures("anthropic", "claude-haiku-4-5", [flate], text_bytes=1000).images
    with FakeLlmServer() as server:
        with pytest.raises(LlmCallFailed, match="not retryable"):
            Gateway(log, providers=providers_for(server)).call(_request("hostile", [entry]))
        assert server.bodies == []
    [ev] = llm_events(log)
    assert ev.error_type == "FigureUnreadable"
    assert f"paper hostile, page 1: image {flate['sha256'][:12]} (object {flate['xref']}" in ev.error_message
    assert "its stream is damaged" in ev.error_message
