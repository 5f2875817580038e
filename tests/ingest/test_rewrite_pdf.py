"""Replacing one paragraph in a real PDF (the bundled demo paper): the new text comes back from the
re-extracted PDF, every other record is unchanged, and a box that holds or cuts other text is refused."""

from pathlib import Path

import pymupdf
import pytest

from peerlake.ingest.extraction import extract_package
from peerlake.ingest.rewrite_pdf import contains_text, normalized, replace_text, replaceable, rewritable, same_text

DEMO = Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers" / "demo-001.pdf"


@pytest.fixture(scope="module")
def demo():
    pdf = DEMO.read_bytes()
    return pdf, extract_package(pdf)[0]


def _record(pkg, rid):
    return next(r for r in pkg.records if r.id == rid)


def test_normalized_ignores_whitespace_and_hyphens():
    # "low-\nresource" re-wrapped and de-hyphenated by ingest reads "lowresource"
    assert same_text("a low-resource\n task", "a lowresource task")
    assert normalized(" a - b\tc ") == "abc"
    assert contains_text("x y z", "y  z") and not contains_text("x y z", "") and not contains_text("x", "y")


def test_replaced_paragraph_comes_back_and_nothing_else_changes(demo):
    pdf, pkg = demo
    rec = _record(pkg, "p1-r12")  # "We train with AdamW for 20 epochs with batch size 16. ..."
    new = ("We train with plain SGD for 3 epochs with batch size 512 — θ ≈ 0.1. "
           "The classification head is a two-layer network on the mean token.")
    out = replace_text(pdf, rec.page, rec.bbox, new)
    after, _ = extract_package(out)
    texts = {r.id: r.text for r in after.records}
    assert contains_text(texts["p1-r12"], new)  # same reading position, Unicode kept
    assert texts == {**{r.id: r.text for r in pkg.records}, "p1-r12": texts["p1-r12"]}
    assert after.n_pages == pkg.n_pages


def test_a_longer_paragraph_is_shrunk_into_the_same_box(demo):
    pdf, pkg = demo
    rec = _record(pkg, "p1-r12")
    new = rec.text + " " + " ".join(["The head is trained jointly with the adapters."] * 4)  # ~3x the text
    after, _ = extract_package(replace_text(pdf, rec.page, rec.bbox, new))
    moved = next(r for r in after.records if contains_text(r.text, new))
    # within the box, up to 2 pt: a glyph's ascender may reach over the line box MuPDF fills
    x0, y0, x1, y1 = rec.bbox
    assert moved.bbox[0] >= x0 - 2 and moved.bbox[1] >= y0 - 2 and moved.bbox[2] <= x1 + 2 and moved.bbox[3] <= y1 + 2


def test_the_rest_of_the_page_renders_as_before(demo):
    # pixels outside the paragraph's box are untouched (rendered at 50 dpi, 1/72 inch = 50/72 px)
    pdf, pkg = demo
    rec = _record(pkg, "p1-r8")
    out = replace_text(pdf, rec.page, rec.bbox, "A different paragraph of about the same length as before, "
                                                "written to replace the observation about layers.")
    before = pymupdf.open(stream=pdf)[0].get_pixmap(dpi=50)
    after = pymupdf.open(stream=out)[0].get_pixmap(dpi=50)
    scale = 50 / 72
    y0, y1 = int(rec.bbox[1] * scale) - 1, int(rec.bbox[3] * scale) + 2
    row = before.stride
    outside = [(0, y0 * row), (y1 * row, len(before.samples))]
    for a, b in outside:
        assert before.samples[a:b] == after.samples[a:b]
    assert before.samples[y0 * row:y1 * row] != after.samples[y0 * row:y1 * row]


def test_boxes_that_hold_or_cut_other_text_are_refused(demo):
    pdf, pkg = demo
    doc = pymupdf.open(stream=pdf)
    r7, r8 = _record(pkg, "p1-r7"), _record(pkg, "p1-r8")
    assert replaceable(doc, r7.page, r7.bbox, r7.text) is None
    # r7's text with a box reaching over r8 (a paragraph joined across a break has such a box)
    both = (r7.bbox[0], r7.bbox[1], r8.bbox[2], r8.bbox[3])
    assert replaceable(doc, r7.page, both, r7.text) == "box_holds_other_text"
    # a box ending in the middle of r8 would wipe half of it
    half = (r7.bbox[0], r7.bbox[1], r7.bbox[2], (r8.bbox[1] + r8.bbox[3]) / 2)
    assert replaceable(doc, r7.page, half, r7.text) == "box_crosses_other_text"
    assert replaceable(doc, r7.page, None, r7.text) == "no_box"
    assert replaceable(doc, 9, r7.bbox, r7.text) == "no_box"
    # the demo's 15 front and body paragraphs all sit in boxes of their own
    paras = [r for r in pkg.records if r.kind == "paragraph" and r.part in ("front", "body")]
    assert rewritable(pdf, paras) == {r.id for r in paras} and len(paras) == 15
