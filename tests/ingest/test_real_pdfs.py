"""The 7 CC BY PDFs in ../shared/data/cc_by_pdfs: reading order, sections, references, images."""

import json
import re

import pymupdf
import pytest

from peerlake.ingest.manuscripts import extract_package, ingest_pdf, load_package
from peerlake.llm_calls.images import figure_source
from peerlake.warehouse.blobs import BlobCorrupted, sha256_hex

NAMES = ["acl2020_main207_SPECTER", "acl2020_main447_S2ORC", "eacl2023_main121_LongEval",
         "mdpi2023_ki67_breast_cancer_guideline", "naacl2018_N18-3011_LiteratureGraph",
         "plosone2018_wheat_heat_stress_metabolomics", "scirep2015_srep08555_quantum_micromotion"]
GROBID = ["acl2020_main207_SPECTER", "naacl2018_N18-3011_LiteratureGraph"]
_CACHE: dict[str, tuple] = {}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


@pytest.fixture
def package(shared):
    def get(name):
        if name not in _CACHE:  # parsing all 7 twice would double the suite's time
            data = shared("cc_by_pdfs", f"{name}.pdf").read_bytes()
            _CACHE[name] = (data, *extract_package(data))
        return _CACHE[name]
    return get


@pytest.mark.parametrize("name", NAMES)
def test_every_pdf_ingests_with_consistent_counts(log, shared, name):
    path = shared("cc_by_pdfs", f"{name}.pdf")
    sums = dict(line.split()[::-1] for line in (path.parent / "SHA256SUMS").read_text().splitlines())
    outcome = ingest_pdf(log, path)
    assert outcome.status == "ingested", outcome.reason
    ev = outcome.event
    assert ev.pdf_sha256 == sums[path.name]
    pkg = load_package(log.blobs, ev.package_sha256)
    with pymupdf.open(path) as doc:
        assert ev.n_pages == doc.page_count
        raw_chars = sum(len(re.sub(r"\s+", "", p.get_text())) for p in doc)
    text_chars = sum(len(re.sub(r"\s+", "", r.text)) for r in pkg.records
                     if r.kind not in ("page_marker", "image"))
    # Nothing big lost or duplicated: the records carry the page text minus headers/footers.
    assert 0.85 * raw_chars <= text_chars <= 1.02 * raw_chars
    assert ev.body_chars + ev.appendix_chars + ev.references_chars == ev.n_chars == pkg.n_chars
    assert ev.n_images == len(pkg.images) and ev.n_references == len(pkg.references)
    ids = [r.id for r in pkg.records]
    assert len(ids) == len(set(ids))
    assert [r.page for r in pkg.records] == sorted(r.page for r in pkg.records)
    # Parts come in document order: front, body, references/appendix.
    order = {"front": 0, "body": 1, "references": 2, "appendix": 2}
    parts = [order[r.part] for r in pkg.records if r.kind != "page_marker"]
    assert parts == sorted(parts)


@pytest.mark.parametrize("name", GROBID)
def test_reading_order_matches_grobid_paragraphs(package, shared, name):
    ref = json.loads(shared("cc_by_pdfs", "reference_parses", f"{name}.s2orc_grobid.json").read_text())
    data, pkg, _ = package(name)
    mine = _norm(" ".join(r.text for r in pkg.records if r.kind not in ("page_marker", "image")))
    with pymupdf.open(stream=data) as doc:
        naive = _norm(" ".join(b[4] for p in doc for b in p.get_text("blocks", sort=True)))

    def whole(hay):
        found = 0
        paras = [_norm(p["text"]) for p in ref["pdf_parse"]["body_text"] if len(p["text"]) > 200]
        for p in paras:
            i = hay.find(p[:80])
            j = hay.find(p[-80:], max(i, 0))
            found += i >= 0 and j >= 0 and j - i < 1.6 * len(p)
        return found / len(paras)

    assert whole(mine) >= 0.8
    assert whole(mine) >= 1.8 * whole(naive)  # the y-sorted baseline interleaves columns


@pytest.mark.parametrize("name,sentence", [
    ("acl2020_main207_SPECTER", "While such models are widely used for representing individual words or "
                                "sentences, extensions to whole-document embeddings are relatively underexplored."),
    ("acl2020_main207_SPECTER", "Our evaluation of the learned representations on predicting user activity "
                                "is shown in the “User activity” columns of Table 1."),
])
def test_sentence_across_columns_comes_out_whole(package, name, sentence):
    _, pkg, _ = package(name)
    holders = [r for r in pkg.records if sentence in r.text]
    assert len(holders) == 1 and holders[0].kind == "paragraph"
    body = pkg.review_text(500_000)
    assert body.count(sentence) == 1


@pytest.mark.parametrize("name,first_appendix,refs_low,refs_high", [
    ("acl2020_main207_SPECTER", "A Appendix A - Baseline Details", 50, 60),
    ("acl2020_main447_S2ORC", "A Background & Terminology", 45, 70),
    ("eacl2023_main121_LongEval", "Appendix", 55, 80),
])
def test_appendix_split_and_references(package, name, first_appendix, refs_low, refs_high):
    _, pkg, _ = package(name)
    app_heads = [r.text for r in pkg.records if r.part == "appendix" and r.kind == "heading"]
    assert app_heads[0] == first_appendix
    ref_pages = {r.page for r in pkg.records if r.kind == "reference"}
    app_pages = {r.page for r in pkg.records if r.part == "appendix"}
    assert max(ref_pages) <= min(app_pages)
    assert refs_low <= len(pkg.references) <= refs_high
    assert all(_has_year(e) for e in pkg.references)
    body, appendix = pkg.body_text(), pkg.appendix_text()
    assert first_appendix not in body.splitlines() and appendix.startswith(first_appendix)
    review = pkg.review_text(500_000)
    assert appendix[200:400] not in review and "[Appendix not included" in review
    assert appendix[200:400] in pkg.review_text(500_000, include_appendix=True)


def _has_year(entry: str) -> bool:
    return bool(re.search(r"\b(19|20)\d{2}", entry))


def test_reference_count_close_to_grobid(package, shared):
    for name in GROBID:
        ref = json.loads(shared("cc_by_pdfs", "reference_parses", f"{name}.s2orc_grobid.json").read_text())
        expected = len(ref["pdf_parse"]["bib_entries"])
        assert abs(len(package(name)[1].references) - expected) <= 0.1 * expected + 1, name


def test_unheaded_numbered_bibliography_is_found(package):
    _, pkg, _ = package("scirep2015_srep08555_quantum_micromotion")
    refs = pkg.references
    numbers = [int(m.group(1)) for e in refs if (m := re.match(r"^(\d+)\.", e))]
    assert len(refs) >= 30 and numbers == sorted(numbers) and numbers[0] == 1


def test_images_are_stored_once_by_hash_and_rechecked(log, shared):
    path = shared("cc_by_pdfs", "mdpi2023_ki67_breast_cancer_guideline.pdf")
    ev = ingest_pdf(log, path).event
    pkg = load_package(log.blobs, ev.package_sha256)
    assert pkg.n_images >= 5
    shas = [img["sha256"] for img in pkg.images]
    assert len(shas) == len(set(shas))
    for img in pkg.images:
        stored = log.blobs.get(img["sha256"])
        assert sha256_hex(stored) == img["sha256"]
        # the PDF's raw stream (package version 3), a real image once decoded on read
        assert pymupdf.Pixmap(figure_source(log.blobs, img)).width == img["width"]
    # Each image appears in the reading-order index where it is placed.
    placed = {r.image_sha256 for r in pkg.records if r.kind == "image"}
    assert placed == set(shas)
    # Tampering with an image blob is caught when the package is loaded.
    victim = log.blobs.path(shas[0])
    victim.chmod(0o644)
    victim.write_bytes(b"not the image")
    with pytest.raises(BlobCorrupted, match=shas[0]):
        load_package(log.blobs, ev.package_sha256)


def test_anonymized_view_keeps_what_it_removed(package):
    _, pkg, _ = package("eacl2023_main121_LongEval")
    text = pkg.review_text(500_000)
    for leaked in ("Kalpesh Krishna", "@allenai.org", "University of Massachusetts"):
        assert leaked not in text.split("Abstract")[0]
        assert any(leaked in r["text"] for r in pkg.removed)
    assert "First and foremost, we would like to thank" not in text
    reasons = {r["reason"] for r in pkg.removed}
    assert {"author names", "e-mail address", "affiliation", "acknowledgements"} <= reasons


@pytest.mark.parametrize("name,abstract,intro", [
    ("eacl2023_main121_LongEval", "While human evaluation remains best practice",
     "Human judgments are considered the gold standard for evaluating model-generated summaries (Kryscinski"),
    ("naacl2018_N18-3011_LiteratureGraph", "We describe a deployed scalable system",
     "The goal of this work is to facilitate algorithmic discovery"),
])
def test_a_first_page_under_centred_front_matter_is_read_column_by_column(package, name, abstract, intro):
    # The centred title, author and e-mail lines cross the gutter; they once hid it, and the first page
    # was read across both columns: LongEval's abstract came after the right column's first paragraph.
    _, pkg, _ = package(name)
    page1 = [r for r in pkg.records if r.page == 1 and r.kind not in ("page_marker", "image")]
    texts = [r.text for r in page1]
    at = {k: next(i for i, t in enumerate(texts) if t.startswith(k))
          for k in ("Abstract", abstract, "1 Introduction", intro)}
    assert at["Abstract"] + 1 == at[abstract] < at["1 Introduction"] < at[intro], texts
    # the first sentence that runs from the left column into the right one comes out whole
    assert sum(intro in r.text for r in pkg.records) == 1
