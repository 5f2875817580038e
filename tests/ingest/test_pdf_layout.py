"""The layout pass's faster forms (#50) against the plain ones they replaced, written out here as the
reference: the gutter found with a difference array is the one a step-by-step scan finds, and lines are
joined as the regex version joined them. Random layouts and strings, a fixed seed."""

import random
import re

import pymupdf
import pytest

from peerlake.ingest.pdf_layout import Block, find_gutter, image_blocks, image_info_once, join_lines, text_blocks


def _gutter_by_scan(blocks: list[Block], page_width: float) -> float | None:
    """The scan find_gutter did before: every 2 pt from 30 % to 70 % of the width, each block tested."""
    centre = page_width / 2
    narrow = [b for b in blocks if b.kind == "text" and b.width < 0.55 * page_width and len(b.text) >= 20
              and not (len(b.text) <= 300 and abs((b.bbox[0] + b.bbox[2]) / 2 - centre) < 0.04 * page_width)]
    total = sum(len(b.text) for b in narrow)
    if not total:
        return None
    best, gutter, x = None, None, 0.3 * page_width
    while x <= 0.7 * page_width:
        covered = sum(len(b.text) for b in narrow if b.bbox[0] < x < b.bbox[2])
        if best is None or (covered, abs(x - centre)) < best:
            best, gutter = (covered, abs(x - centre)), x
        x += 2.0
    if best[0] > 0.04 * total:
        return None
    left = sum(len(b.text) for b in narrow if b.bbox[2] <= gutter)
    right = sum(len(b.text) for b in narrow if b.bbox[0] >= gutter)
    return None if left < 0.15 * total or right < 0.15 * total else gutter


def _random_page(rng: random.Random, width: float) -> list[Block]:
    blocks = []
    for _ in range(rng.randint(0, 30)):
        if rng.random() < 0.6:  # a column block, its edges often on the 2-pt grid the scan steps on
            left = rng.random() < 0.5
            x0 = rng.choice([rng.uniform(50, 80), 0.3 * width + 2 * rng.randint(0, 5)]) if left \
                else rng.choice([rng.uniform(0.5 * width, 0.55 * width), 0.3 * width + 2 * rng.randint(30, 60)])
            x1 = x0 + rng.uniform(40, 0.45 * width)
        else:
            x0 = rng.uniform(0, width)
            x1 = x0 + rng.choice([0.0, rng.uniform(0, width)])
        y0 = rng.uniform(0, 700)
        blocks.append(Block("text", (round(x0, 1), y0, round(x1, 1), y0 + 10), text="x" * rng.randint(0, 400)))
    return blocks


def test_the_gutter_is_the_one_a_step_by_step_scan_finds():
    rng = random.Random(50)
    found = 0
    for _ in range(3000):
        width = rng.choice([595.0, 612.0, 419.5, rng.uniform(100, 1500)])
        blocks = _random_page(rng, width)
        want = _gutter_by_scan(blocks, width)
        assert find_gutter(blocks, width) == want
        found += want is not None
    assert found > 100  # the layouts reach two-column pages, not only None


def _join_by_regex(lines: list[str]) -> str:
    out = ""
    for line in lines:
        line = re.sub(r"\s+", " ", line).strip()
        if not line:
            continue
        hyphenated = re.search(r"[a-z]-$", out) and line[:1].islower()
        out = out[:-1] + line if hyphenated else (f"{out} {line}" if out else line)
    return out


def test_lines_are_joined_as_the_regex_version_joined_them():
    rng = random.Random(7)
    alphabet = ["a", "z", "A", "-", " ", "\t", "\u00a0", "\u2003", "\x1c", "\x85", "é", "ß", "1", "\n", "–"]
    for _ in range(20000):
        lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(0, 5))]
        assert join_lines(lines) == _join_by_regex(lines), lines


def test_image_info_is_read_once_per_page_and_shared(monkeypatch):
    """The white-text check and image_blocks share one get_image_info (each builds a text page)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(0, 0, 300, 300), color=None, fill=(1, 1, 1))
    page.insert_text((72, 72), "white words on a white page", color=(1, 1, 1))
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    pix.set_rect(pix.irect, (200, 30, 30))
    page.insert_image(pymupdf.Rect(100, 100, 200, 200), pixmap=pix)
    calls = []
    real = pymupdf.Page.get_image_info

    def counted(self, *a, **kw):
        calls.append(self.number)
        return real(self, *a, **kw)

    monkeypatch.setattr(pymupdf.Page, "get_image_info", counted)
    images = image_info_once(page)
    blocks = text_blocks(page, images)
    figures = image_blocks(page, image_info=images)
    assert [b.hidden for b in blocks] == ["white_text"]
    assert [f.bbox for f in figures] == [(100.0, 100.0, 200.0, 200.0)]
    assert calls == [0]
    assert text_blocks(page)[0].hidden == "white_text" and len(calls) == 2  # alone, it reads its own


@pytest.mark.parametrize("reason", ["tiny_text", "invisible_text"])
def test_a_block_with_one_hidden_span_is_split_by_reason(reason):
    doc = pymupdf.open()
    page = doc.new_page()
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 100), "Visible words before ")
    if reason == "tiny_text":
        writer.append(writer.last_point, "hidden words", fontsize=0.5)
    else:  # on the same baseline, right after the visible words: one line of MuPDF's
        page.insert_text(writer.last_point, "hidden words", render_mode=3)
    writer.write_text(page)
    blocks = text_blocks(page)
    assert [b.hidden for b in blocks] == [None, reason]
    assert blocks[0].text.startswith("Visible words") and "hidden" not in blocks[0].text
    assert blocks[1].text == "hidden words"
