import io
import re
import shutil

import pymupdf
import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.demo_corpus.build import parse_source
from peerlake.ingest.manuscripts import (
    TRUNCATION_NOTE,
    ManuscriptError,
    ManuscriptPackage,
    extract_records,
    ingest_pdf,
    load_package,
)
from peerlake.warehouse.blobs import sha256_hex

DEMO = demo_papers()


def _pdf_from_html(html: str) -> bytes:
    story = pymupdf.Story(html=html)
    out = io.BytesIO()
    writer = pymupdf.DocumentWriter(out)
    mediabox = pymupdf.paper_rect("letter")
    more = True
    while more:
        dev = writer.begin_page(mediabox)
        more, _ = story.place(mediabox + (72, 72, -72, -72))  # Rect arithmetic  # noqa: RUF005
        story.draw(dev)
        writer.end_page()
    writer.close()
    return out.getvalue()


def test_demo_corpus_is_present():
    assert [p.stem for p in DEMO] == ["demo-001", "demo-002", "demo-003", "demo-004"]


@pytest.mark.parametrize("pdf", DEMO, ids=lambda p: p.stem)
def test_records_are_ordered_with_page_numbers(pdf):
    pkg = extract_records(pdf.read_bytes())
    meta, _ = parse_source((pdf.parent.parent / "sources" / f"{pdf.stem}.md").read_text())
    assert pkg.title == meta["title"]
    assert pkg.n_pages == 2
    assert len({r.id for r in pkg.records}) == len(pkg.records)
    pages = [r.page for r in pkg.records]
    assert pages == sorted(pages) and set(pages) == {1, 2}
    for page in (1, 2):
        on_page = [r for r in pkg.records if r.page == page]
        assert on_page[0].kind == "page_marker" and on_page[0].id == f"p{page}-r0"
        assert [int(r.id.split("-r")[1]) for r in on_page] == list(range(len(on_page)))
    headings = [r.text for r in pkg.records if r.kind == "heading"]
    assert headings[:2] == ["Abstract", "1 Introduction"] and headings[-1] == "References"
    # Reading order: section numbers appear in increasing order.
    numbers = [int(h.split()[0]) for h in headings if re.match(r"^\d+ ", h)]
    assert numbers == sorted(numbers) and numbers[0] == 1
    assert pkg.n_chars == sum(len(r.text) for r in pkg.records if r.kind != "page_marker")
    assert pkg.pdf_sha256 == sha256_hex(pdf.read_bytes())


@pytest.mark.parametrize("pdf", DEMO, ids=lambda p: p.stem)
def test_package_json_round_trip(pdf):
    pkg = extract_records(pdf.read_bytes())
    again = ManuscriptPackage.from_json(pkg.to_json())
    assert again == pkg
    assert again.to_json() == pkg.to_json()


def test_review_text_is_anonymized_with_page_markers():
    pkg = extract_records(DEMO[1].read_bytes())  # demo-002 leaks its lab in the acknowledgements
    text = pkg.review_text(100_000)
    assert "[page 1]" in text and "[page 2]" in text
    assert text.index("[page 1]") < text.index("Abstract") < text.index("[page 2]")
    assert "Northbridge" not in text and "Anonymous authors" not in text
    assert "Acknowledgements" not in text and "References" in text
    reasons = {r["reason"] for r in pkg.removed}
    assert reasons == {"author line", "corpus label", "acknowledgements"}
    assert "Synthetic demo paper" not in text
    assert any("Northbridge" in r["text"] for r in pkg.removed)
    assert TRUNCATION_NOTE not in text


def test_review_text_truncates_visibly():
    pkg = extract_records(DEMO[0].read_bytes())
    full = pkg.review_text(100_000)
    cut = pkg.review_text(800)
    assert len(cut) <= 800 and cut.endswith(TRUNCATION_NOTE)
    assert full.startswith(cut[: -len(TRUNCATION_NOTE)].rstrip())


def test_author_affiliation_email_lines_are_removed():
    pdf = _pdf_from_html(
        "<h1>A Study of Things</h1>"
        "<p>Jane Q. Doe, John Smith and Ada Lovelace</p>"
        "<p>Department of Computer Science, Example University</p>"
        "<p>jane.doe@example.org</p>"
        "<h2>Abstract</h2><p>We study things carefully and report what we find about them.</p>"
        "<h2>1 Introduction</h2><p>Things matter. John Smith (2020) studied them before.</p>"
        "<h2>Acknowledgments</h2><p>We thank the Example Foundation for funding.</p>"
        "<h2>References</h2><p>[1] Smith. Things. 2020.</p>")
    pkg = extract_records(pdf)
    assert pkg.title == "A Study of Things"
    removed = {r["reason"]: r["text"] for r in pkg.removed}
    assert removed["author names"].startswith("Jane Q. Doe")
    assert "Example University" in removed["affiliation"]
    assert removed["e-mail address"] == "jane.doe@example.org"
    text = pkg.review_text(10_000)
    for leaked in ("Jane", "Example University", "@example.org", "Example Foundation"):
        assert leaked not in text
    # Body text that merely mentions a name stays.
    assert "John Smith (2020) studied them" in text and "References" in text


def test_ingest_stores_package_and_event(log):
    outcomes = [ingest_pdf(log, p, venue="Demo.cc/2026/Conference", is_synthetic=True) for p in DEMO]
    assert [o.status for o in outcomes] == ["ingested"] * 4
    events = list(log.iter_events("paper_ingested"))
    assert {e.paper_id for e in events} == {p.stem for p in DEMO}
    for o in outcomes:
        ev = o.event
        pkg = load_package(log.blobs, ev.package_sha256)
        assert sha256_hex(pkg.to_json().encode()) == ev.package_sha256
        assert ev.pdf_sha256 == sha256_hex(o.path.read_bytes()) == pkg.pdf_sha256
        assert (ev.n_pages, ev.n_chars, ev.n_text_records) == (pkg.n_pages, pkg.n_chars, pkg.n_text_records)
        assert ev.title == pkg.title and ev.is_synthetic and ev.venue == "Demo.cc/2026/Conference"
        assert ev.source_uri.startswith("file://") and ev.source_uri.endswith(o.path.name)


def test_reingest_same_bytes_is_a_noop(log, tmp_path):
    first = ingest_pdf(log, DEMO[0])
    again = ingest_pdf(log, DEMO[0])
    assert again.status == "unchanged" and again.event.event_id == first.event.event_id
    # Same bytes under another file name, same paper id: still the same version.
    copy = tmp_path / "renamed.pdf"
    shutil.copy(DEMO[0], copy)
    assert ingest_pdf(log, copy, paper_id="demo-001").status == "unchanged"
    assert len(list(log.iter_events("paper_ingested"))) == 1


def test_different_bytes_make_a_new_version(log, tmp_path):
    first = ingest_pdf(log, DEMO[0])
    revised = tmp_path / "demo-001.pdf"
    shutil.copy(DEMO[1], revised)
    second = ingest_pdf(log, revised)
    assert second.status == "new_version" and second.paper_id == "demo-001"
    assert second.event.pdf_sha256 != first.event.pdf_sha256
    events = [e for e in log.iter_events("paper_ingested") if e.paper_id == "demo-001"]
    assert len(events) == 2
    # Going back to the first bytes is a change relative to the latest version.
    assert ingest_pdf(log, DEMO[0]).status == "new_version"


def _bad_inputs(tmp_path):
    good = DEMO[0].read_bytes()
    files = {
        "empty.pdf": (b"", "empty"),
        "notes.pdf": (b"These are my notes, saved with the wrong extension.\n" * 20, "not a PDF"),
        "truncated.pdf": (good[: len(good) // 2], "truncated"),
        "garbage.pdf": (b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n", "could not be parsed"),
    }
    doc = pymupdf.open(stream=good, filetype="pdf")
    files["locked.pdf"] = (doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret",
                                       owner_pw="owner"), "encrypted")
    paths = {}
    for name, (data, why) in files.items():
        (tmp_path / name).write_bytes(data)
        paths[tmp_path / name] = why
    paths[tmp_path / "missing.pdf"] = "cannot be read"
    return paths


def test_bad_inputs_are_rejected_without_stopping_the_batch(log, tmp_path):
    bad = _bad_inputs(tmp_path)
    batch = [*bad, DEMO[2]]
    outcomes = [ingest_pdf(log, p) for p in batch]  # must not raise
    for o in outcomes[:-1]:
        assert o.status == "rejected" and o.event is None, o
        assert str(o.path) in o.reason and bad[o.path] in o.reason
    assert outcomes[-1].status == "ingested"
    assert [e.paper_id for e in log.iter_events("paper_ingested")] == ["demo-003"]


def test_extract_records_raises_manuscript_error():
    with pytest.raises(ManuscriptError, match="empty"):
        extract_records(b"")
    image_only = pymupdf.open()
    image_only.new_page()
    with pytest.raises(ManuscriptError, match="no extractable text"):
        extract_records(image_only.tobytes())


def test_real_two_column_pdf_smoke(log, shared):
    pdf = shared("cc_by_pdfs", "acl2020_main207_SPECTER.pdf")
    sums = dict(line.split()[::-1] for line in (pdf.parent / "SHA256SUMS").read_text().splitlines())
    outcome = ingest_pdf(log, pdf, paper_id="specter")
    assert outcome.status == "ingested"
    assert outcome.event.pdf_sha256 == sums[pdf.name]
    pkg = load_package(log.blobs, outcome.event.package_sha256)
    assert pkg.n_pages == 13 and pkg.title.startswith("SPECTER")
    assert pkg.n_chars > 30_000
    text = pkg.review_text(200_000)
    assert "@allenai.org" not in text and "Arman Cohan" not in text.split("Abstract")[0]
    # Page 13 is appendix only: the review text names the appendix instead of carrying it.
    assert "[page 11]" in text and "Abstract" in text and "[page 13]" not in text
    assert "[page 13]" in pkg.review_text(200_000, include_appendix=True)
