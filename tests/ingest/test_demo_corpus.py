import json

import pymupdf
import pytest

from peerlake.ingest.demo_corpus import DEMO_DIR, demo_papers, demo_reviews
from peerlake.ingest.demo_corpus.build import SYNTHETIC_LABEL, build
from peerlake.ingest.openreview import ICLR2025_SCALE, parse_score, scale_values
from peerlake.warehouse.blobs import sha256_hex


def _page_texts(path):
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def test_build_is_byte_stable_and_matches_committed_pdfs(tmp_path):
    a = build(tmp_path / "a")
    b = build(tmp_path / "b")
    assert [sha256_hex(p.read_bytes()) for p in a] == [sha256_hex(p.read_bytes()) for p in b]
    # Text, not bytes, against the committed PDFs: a PyMuPDF upgrade may change bytes, but the
    # papers must still say what their sources say.
    assert [p.name for p in a] == [p.name for p in demo_papers()]
    for built, committed in zip(a, demo_papers(), strict=True):
        assert _page_texts(built) == _page_texts(committed), (
            f"{committed} is out of date: run python -m peerlake.ingest.demo_corpus.build")


@pytest.mark.parametrize("pdf", demo_papers(), ids=lambda p: p.stem)
def test_papers_are_short_and_labelled_synthetic(pdf):
    with pymupdf.open(pdf) as doc:
        first = doc[0].get_text()
        text = "".join(page.get_text() for page in doc)
        assert SYNTHETIC_LABEL in first
        assert "Anonymous authors — paper under double-blind review" in first
        assert doc.metadata["subject"] == SYNTHETIC_LABEL
        assert doc.page_count == 2
    assert len(text) <= 5_500
    assert "Table 1" in text and "References" in text


def test_every_paper_has_two_or_three_reviews_on_the_scale():
    assert [p.stem for p in demo_reviews()] == [p.stem for p in demo_papers()]
    allowed = scale_values(ICLR2025_SCALE)
    for path in demo_reviews():
        notes = json.loads(path.read_text())
        reviews = [n for n in notes if n["invitations"][0].endswith("/-/Official_Review")]
        assert 2 <= len(reviews) <= 3
        for n in reviews:
            assert n["forum"] == path.stem and n["cdate"] == n["tcdate"] > 1.7e12
            for field in ("summary", "strengths", "weaknesses", "questions"):
                assert n["content"][field]["value"].strip()
            assert parse_score(n["content"]["rating"]["value"], "rating") in allowed
            assert 1 <= parse_score(n["content"]["confidence"]["value"], "confidence") <= 5


def test_source_md_says_synthetic():
    assert "synthetic" in (DEMO_DIR / "SOURCE.md").read_text().lower()
