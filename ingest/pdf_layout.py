"""Page layout: text blocks and image placements of one PDF page, in reading order.

`page.get_text("blocks", sort=True)` sorts by y and so interleaves two columns (L1, R1, L2 …).
Here the column gutter is found from the blocks' x-extents, blocks that cross it (titles, author
rows, full-width figures) cut the page into bands, and each band is read left column then right
column. One pass over the block list; no extra package.
"""

import re
from collections import Counter
from dataclasses import dataclass, field

import pymupdf

from peerlake.ingest.visibility import page_backdrop, span_reason

# Ligatures expanded (no TEXT_PRESERVE_LIGATURES) so "ﬁxed" reads as "fixed"; images are not
# decoded here (no TEXT_PRESERVE_IMAGES) because the text pass must stay cheap.
TEXT_FLAGS = pymupdf.TEXT_MEDIABOX_CLIP

# Blocks this small (figure labels, equation fragments) do not decide where the gutter is.
_MIN_GUTTER_CHARS = 20
# A gutter may be crossed by a few stray labels, not by body text.
_GUTTER_MAX_SHARE = 0.04
# Each side needs this share of the narrow text for the page to count as two columns.
_MIN_SIDE_SHARE = 0.15
# A short block centred on the page (a title line, an author or e-mail line, a running footer) spans
# the gutter on a two-column first page without being body text: it neither decides the gutter nor
# counts against it. reading_order then puts it in the "full" band, as a reader does. Without this, the
# centred front matter of an ACL-style first page (~250 chars across the centre) hid its gutter, and
# the page was read line by line across both columns: the abstract after the right column's first
# paragraph. Centred: its midpoint within this share of the page width of the page's centre.
_CENTRED_SHARE = 0.04
_CENTRED_MAX_CHARS = 300
# Compiled once: join_lines runs per line of every block (re's cache lookup was ~5 % of the layout pass).
_SPACES = re.compile(r"\s+")
_HYPHEN_END = re.compile(r"[a-z]-$")


@dataclass
class Block:
    """A text block or an image placement. kind is "text" or "image"."""

    kind: str
    bbox: tuple[float, float, float, float]
    text: str = ""
    size: float = 0.0
    bold: bool = False
    mono: bool = False
    n_lines: int = 0
    chars: Counter = field(default_factory=Counter)
    column: str = "full"  # left | right | full
    xref: int = 0
    hidden: str | None = None  # why the rendered page does not show it (ingest.visibility.REASONS)

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]


def join_lines(lines: list[str]) -> str:
    """Join a block's lines, undoing end-of-line hyphenation ("ingre-" + "dient")."""
    out = ""
    for line in lines:
        line = _SPACES.sub(" ", line).strip()
        if not line:
            continue
        hyphenated = _HYPHEN_END.search(out) and line[:1].islower()
        out = out[:-1] + line if hyphenated else (f"{out} {line}" if out else line)
    return out


def text_blocks(page: pymupdf.Page) -> list[Block]:
    """Non-empty text blocks of a page with font statistics. Spans the rendered page would not show
    (ingest.visibility) are split off into blocks of their own, one per reason, marked `hidden`; a
    block with no hidden span is built exactly as before the check existed."""
    blocks = []
    rect = tuple(page.rect)
    backdrop = page_backdrop(page)
    for b in page.get_text("dict", flags=TEXT_FLAGS)["blocks"]:
        if b.get("type") != 0:
            continue
        reasons = {id(s): span_reason(s, rect, backdrop)
                   for line in b["lines"] for s in line["spans"] if s["text"].strip()}
        if not any(reasons.values()):
            if reasons:
                blocks.append(_block(b["lines"], b["bbox"]))
            continue
        for reason in (None, *sorted({r for r in reasons.values() if r})):
            # whitespace-only spans stay with the visible text, where they were spaces
            lines = [{"spans": [s for s in line["spans"] if reasons.get(id(s)) == reason]} for line in b["lines"]]
            spans = [s for line in lines for s in line["spans"] if s["text"].strip()]
            if spans:
                bbox = (min(s["bbox"][0] for s in spans), min(s["bbox"][1] for s in spans),
                        max(s["bbox"][2] for s in spans), max(s["bbox"][3] for s in spans))
                blocks.append(_block(lines, bbox, hidden=reason))
    return blocks


def _block(lines_: list[dict], bbox, hidden: str | None = None) -> Block:
    spans = [s for line in lines_ for s in line["spans"] if s["text"].strip()]
    mono = all(s["flags"] & pymupdf.TEXT_FONT_MONOSPACED for s in spans)
    lines = ["".join(s["text"] for s in line["spans"]) for line in lines_]
    lines = [ln.rstrip() for ln in lines if ln.strip()]
    chars: Counter = Counter()
    for s in spans:
        chars[round(s["size"], 1)] += len(s["text"])
    return Block(
        kind="text",
        bbox=tuple(round(v, 1) for v in bbox),
        text="\n".join(lines) if mono else join_lines(lines),
        size=max(s["size"] for s in spans),
        bold=all(s["flags"] & pymupdf.TEXT_FONT_BOLD for s in spans),
        mono=mono,
        n_lines=len(lines),
        chars=chars,
        hidden=hidden,
    )


def image_blocks(page: pymupdf.Page, min_side_pt: float = 24.0) -> list[Block]:
    """Image placements big enough to be a figure, not a bullet or a logo speck.

    `get_image_info(xrefs=True)` hashes every pixmap to find xrefs (about 0.3 s for a 21-page
    journal paper); matching placements to `get_images()` by pixel size costs nothing."""
    by_size: dict[tuple[int, int], list[int]] = {}
    for img in page.get_images(full=True):
        by_size.setdefault((img[2], img[3]), []).append(img[0])
    if not by_size:
        # No image to match a placement to, so none would be kept: skip the second text page that
        # get_image_info builds (most pages of a paper; ~20 % of the layout pass on the CC BY PDFs).
        return []
    out = []
    for info in page.get_image_info():
        x0, y0, x1, y1 = info["bbox"]
        candidates = by_size.get((info["width"], info["height"]))
        if not candidates or min(x1 - x0, y1 - y0) < min_side_pt:
            continue
        # Same-size images appear in the order get_images lists them; the last one repeats.
        xref = candidates.pop(0) if len(candidates) > 1 else candidates[0]
        out.append(Block(kind="image", bbox=(round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1)),
                         xref=xref))
    return out


def find_gutter(blocks: list[Block], page_width: float) -> float | None:
    """x of the gap between two text columns, or None for a one-column page."""
    centre = page_width / 2
    narrow = [b for b in blocks if b.kind == "text" and b.width < 0.55 * page_width
              and len(b.text) >= _MIN_GUTTER_CHARS and not _centred_line(b, centre, page_width)]
    total = sum(len(b.text) for b in narrow)
    if not total:
        return None
    best: tuple[float, float] | None = None  # (covered chars, distance from centre)
    gutter = None
    x = 0.3 * page_width
    extents = [(b.bbox[0], b.bbox[2], len(b.text)) for b in narrow]  # read once, not once per step
    while x <= 0.7 * page_width:
        covered = sum(n for x0, x1, n in extents if x0 < x < x1)
        key = (covered, abs(x - centre))
        if best is None or key < best:
            best, gutter = key, x
        x += 2.0
    if best is None or best[0] > _GUTTER_MAX_SHARE * total:
        return None
    left = sum(len(b.text) for b in narrow if b.bbox[2] <= gutter)
    right = sum(len(b.text) for b in narrow if b.bbox[0] >= gutter)
    if left < _MIN_SIDE_SHARE * total or right < _MIN_SIDE_SHARE * total:
        return None
    return gutter


def _centred_line(b: Block, centre: float, page_width: float) -> bool:
    return len(b.text) <= _CENTRED_MAX_CHARS and abs((b.bbox[0] + b.bbox[2]) / 2 - centre) < _CENTRED_SHARE * page_width


def reading_order(blocks: list[Block], page_width: float) -> list[Block]:
    """Blocks in the order a person reads them: per band, left column then right column."""
    gutter = find_gutter(blocks, page_width)
    if gutter is None:
        for b in blocks:
            b.column = "full"
        return sorted(blocks, key=lambda b: (round(b.bbox[1]), b.bbox[0]))
    for b in blocks:
        if b.bbox[0] < gutter - 3 and b.bbox[2] > gutter + 3:
            b.column = "full"
        else:
            b.column = "left" if (b.bbox[0] + b.bbox[2]) / 2 < gutter else "right"
    ordered: list[Block] = []
    left: list[Block] = []
    right: list[Block] = []

    def flush() -> None:
        ordered.extend(sorted(left, key=lambda b: (b.bbox[1], b.bbox[0])))
        ordered.extend(sorted(right, key=lambda b: (b.bbox[1], b.bbox[0])))
        left.clear()
        right.clear()

    for b in sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0])):
        if b.column == "full":
            flush()
            ordered.append(b)
        else:
            (left if b.column == "left" else right).append(b)
    flush()
    return ordered
