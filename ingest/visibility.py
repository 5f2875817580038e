"""Is a text span visible on the rendered page? The check behind `ManuscriptPackage.hidden`.

A span of the text layer is hidden when the page render would not show it:
  invisible_text  render mode 3 (neither filled nor stroked) or fully transparent (alpha 0)
  off_page        its box lies outside the page (MuPDF clips text to the page when it reads it, so
                  this fires only for spans it returns beyond the edge; text wholly outside never
                  reaches a package — see ingest/hidden_text.py)
  tiny_text       font size below TINY_PT
  white_text      near-white colour with no non-white fill or image under it (the page is white)
The first that applies is the reason. Pure and cheap: a few dict lookups per span; the page's
drawings and images are read only on a page that has near-white text (most pages have none).
[defaults, not in source: TINY_PT, NEAR_WHITE]
"""

from collections.abc import Callable

# Bits of a span's `char_flags` (MuPDF FZ_STEXT_FILLED / FZ_STEXT_STROKED).
FILLED, STROKED = 16, 32
# Below 1 pt a glyph is under 1.4 px at the 100 DPI page renders systems see; no CC BY paper
# checked has text below 3 pt. (our default)
TINY_PT = 1.0
# Each RGB channel at or above this (of 255) counts as white; the page background is assumed white.
NEAR_WHITE = 242
REASONS = ("invisible_text", "off_page", "tiny_text", "white_text")


def _near_white(rgb: int) -> bool:
    return min((rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255) >= NEAR_WHITE


def span_reason(span: dict, page_rect: tuple[float, float, float, float],
                backdrop: Callable[[float, float], bool]) -> str | None:
    """Why `span` (a MuPDF "dict" span) is not visible, or None when it is. `backdrop(x, y)` says
    whether a non-white fill or an image lies under that point."""
    # (pymupdf < 1.25 gives no char_flags: then only alpha tells)
    if not span.get("char_flags", FILLED) & (FILLED | STROKED) or span.get("alpha", 255) == 0:
        return "invisible_text"
    x0, y0, x1, y1 = span["bbox"]
    px0, py0, px1, py1 = page_rect
    if x1 <= px0 or x0 >= px1 or y1 <= py0 or y0 >= py1:
        return "off_page"
    if span["size"] < TINY_PT:
        return "tiny_text"
    if _near_white(span["color"]) and not backdrop((x0 + x1) / 2, (y0 + y1) / 2):
        return "white_text"
    return None


def page_backdrop(page, image_info: Callable[[], list[dict]] | None = None) -> Callable[[float, float], bool]:
    """backdrop(x, y) for a pymupdf page, reading its drawings and images on the first call only.
    `image_info()` gives the page's `get_image_info()` when the caller reads it anyway."""
    boxes: list[tuple[float, float, float, float]] | None = None

    def covered(x: float, y: float) -> bool:
        nonlocal boxes
        if boxes is None:
            boxes = []
            # get_cdrawings: the same paths as get_drawings without wrapping every item in Point/Rect
            # objects (most of its cost); only each path's fill and rect are read here.
            for d in page.get_cdrawings():
                fill = d.get("fill")
                if fill is not None and min(fill) < NEAR_WHITE / 255:
                    boxes.append(tuple(d["rect"]))
            boxes += [tuple(info["bbox"]) for info in (image_info() if image_info else page.get_image_info())]
        return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes)

    return covered
