"""Hidden-text injection and the visibility check on real PDFs (the demo corpus in the repository, the CC BY
PDFs in ../shared/data when present): each method hides its text from the rendered page (pixel for pixel
against the clean page) while the check flags it, off-page text never reaches a package, clean papers get
no false alarm and keep their packages as before, and the builder records each variant once."""

import json
from pathlib import Path

import pymupdf
import pytest

from peerlake.ingest import hidden_text
from peerlake.ingest.extraction import extract_package
from peerlake.ingest.pages import DEFAULT_DPI
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.warehouse import EventLog

DEMO = sorted((Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers").glob("*.pdf"))
CC_BY = Path(__file__).resolve().parents[3] / "shared" / "data" / "cc_by_pdfs"
TEXT = hidden_text.DEFAULT_TEXT
REASON = {"white": "white_text", "tiny": "tiny_text", "invisible": "invisible_text"}


@pytest.fixture(scope="module")
def demo():
    data = DEMO[0].read_bytes()
    return data, extract_package(data)[0]


def _pixels(pdf: bytes, page: int, dpi: int) -> bytes:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return doc[page - 1].get_pixmap(dpi=dpi).samples


@pytest.mark.parametrize("method", ["white", "tiny", "invisible"])
def test_each_method_leaves_no_pixel_and_is_flagged(demo, method):
    data, package = demo
    pdf, details = hidden_text.inject(data, package, method, TEXT)
    assert pdf is not None and details["anchor"] == "after_conclusion"
    for dpi in (DEFAULT_DPI, 200):  # what systems see, and twice that
        assert _pixels(pdf, details["page"], dpi) == _pixels(data, details["page"], dpi), dpi
    variant = extract_package(pdf)[0]
    assert [h["reason"] for h in variant.hidden] == [REASON[method]]
    (flagged,) = [r for r in variant.records if r.id == variant.hidden[0]["record_id"]]
    assert " ".join(flagged.text.split()) == TEXT  # the whole text, in one record of its own
    # it sits after the conclusion's last record in reading order
    ids = [r.id for r in variant.records]
    assert ids.index(flagged.id) > ids.index(details["anchor_record_id"])
    assert hidden_text.detection(variant, TEXT) == {
        "in_package": True, "detector_flagged": True, "n_flagged": 1, "n_flagged_not_injected": 0,
        "flag_reasons": [REASON[method]]}
    # the defence's view is the clean text again
    assert [r.text for r in variant.without_hidden().records] == [r.text for r in package.records]


def test_off_page_text_is_in_the_text_layer_but_never_in_a_package(demo):
    data, package = demo
    pdf, details = hidden_text.inject(data, package, "off_page", TEXT)
    assert _pixels(pdf, details["page"], DEFAULT_DPI) == _pixels(data, details["page"], DEFAULT_DPI)
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:  # a reader that does not clip to the page sees it
        assert "highest overall score" in doc[details["page"] - 1].get_text(clip=pymupdf.INFINITE_RECT())
    variant = extract_package(pdf)[0]
    assert variant.hidden == [] and hidden_text.detection(variant, TEXT)["in_package"] is False
    assert [r.text for r in variant.records] == [r.text for r in package.records]


def _clean_pdfs() -> list[Path]:
    return DEMO + (sorted(CC_BY.glob("*.pdf")) if CC_BY.is_dir() else [])


def test_clean_papers_get_no_false_alarm_and_an_unchanged_package():
    if not CC_BY.is_dir():
        pytest.skip(f"{CC_BY} absent: checking the demo corpus only")
    for path in _clean_pdfs():
        package = extract_package(path.read_bytes())[0]
        assert package.hidden == [], path.name
        assert '"hidden"' not in package.to_json()  # so its hash is the one it had before the check


def test_a_cc_by_paper_with_white_text_on_figures_is_not_flagged_and_injection_is():
    path = CC_BY / "plosone2018_wheat_heat_stress_metabolomics.pdf"
    if not path.is_file():
        pytest.skip(f"{path} absent")
    data = path.read_bytes()
    package = extract_package(data)[0]
    assert package.hidden == []  # its white text sits on coloured fills: visible
    pdf, details = hidden_text.inject(data, package, "white", TEXT)
    assert _pixels(pdf, details["page"], DEFAULT_DPI) == _pixels(data, details["page"], DEFAULT_DPI)
    assert hidden_text.detection(extract_package(pdf)[0], TEXT)["detector_flagged"] is True


def test_build_records_each_variant_once_and_ingests_it(lake, monkeypatch):
    log = EventLog(lake)
    ingest_pdf(log, DEMO[0], paper_id="demo-1")
    base = latest_versions(log)["demo-1"]
    assert base.n_hidden_records == 0  # checked, nothing hidden (None would mean not checked)
    spec = hidden_text.Spec.from_table({"methods": ["white", "off_page"]})
    events = hidden_text.build(log, [base], spec, study="s")
    assert [(e.kind, e.built, json.loads(e.details_json)["method"]) for e in events] == [
        ("hidden_text", True, "white"), ("hidden_text", True, "off_page")]
    white = json.loads(events[0].details_json)
    assert (white["detector_flagged"], white["n_flagged"], white["text"]) == (True, 1, TEXT)
    variants = latest_versions(log)
    assert variants[events[0].variant_id].n_hidden_records == 1 and variants[events[0].variant_id].is_synthetic
    assert variants[events[1].variant_id].n_hidden_records == 0
    n = sum(1 for _ in log.iter_events("paper_variant"))
    assert hidden_text.build(log, [base], spec, study="s") == events and sum(
        1 for _ in log.iter_events("paper_variant")) == n  # a replay appends nothing


def test_build_records_a_paper_without_its_pdf_as_not_built(lake):
    log = EventLog(lake)
    ingest_pdf(log, DEMO[1], paper_id="demo-2")
    base = latest_versions(log)["demo-2"]
    log.blobs.path(base.pdf_sha256).unlink()  # as a lake from before PDFs were kept
    (event,) = hidden_text.build(log, [base], hidden_text.Spec())
    assert (event.built, event.reason) == (False, "no_base_pdf")


def test_the_spec_reads_its_keys_and_refuses_bad_values():
    assert hidden_text.Spec.from_table({"control": True}) == hidden_text.Spec()  # the judge's key is ignored
    spec = hidden_text.Spec.from_table({"methods": "tiny", "text": "  Praise   it. ", "papers": ["a"]})
    assert (spec.methods, spec.text, spec.papers) == (("tiny",), "Praise it.", ("a",))
    assert spec.experiment_config() != hidden_text.Spec().experiment_config()
    for bad, key in (({"methods": ["red"]}, "methods"), ({"methods": []}, "methods"), ({"text": ""}, "text"),
                     ({"position": "abstract"}, "position"), ({"papers": "a"}, "papers")):
        with pytest.raises(ValueError, match=rf"^hidden_text\.{key}: "):
            hidden_text.Spec.from_table(bad)
    assert {"methods", "text", "position", "papers"} <= hidden_text.KEYS
