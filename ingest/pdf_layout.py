"""Page layout: text blocks and image placements of one PDF page, in reading order.

`page.get_text("blocks", sort=True)` sorts by y and so interleaves two columns (L1, R1, L2 …).
Here the column gutter is found from the blocks' x-extents, blocks that cross it (titles, author
rows, full-width figures) cut the page into bands, and each band is read left column then right
column. One pass over the block list; no extra package.
"""

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pymupdf

from peerlake.ingest.visibility import FILLED, NEAR_WHITE, STROKED, TINY_PT, page_backdrop, span_reason

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
_MONO, _BOLD = pymupdf.TEXT_FONT_MONOSPACED, pymupdf.TEXT_FONT_BOLD


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
        # str.split() splits on what re's \s matches in a str: the same as collapsing \s+ and stripping,
        # without a regex call per line (join_lines runs on every line of every block)
        line = " ".join(line.split())
        if not line:
            continue
        hyphenated = len(out) > 1 and out[-1] == "-" and "a" <= out[-2] <= "z" and line[:1].islower()
        out = out[:-1] + line if hyphenated else (f"{out} {line}" if out else line)
    return out


def text_blocks(page: pymupdf.Page, image_info: Callable[[], list[dict]] | None = None) -> list[Block]:
    """Non-empty text blocks of a page with font statistics. Spans the rendered page would not show
    (ingest.visibility) are split off into blocks of their own, one per reason, marked `hidden`; a
    block with no hidden span is built exactly as before the check existed. `image_info` (see
    image_info_once) lets the white-text check share the page's image placements with image_blocks."""
    blocks = []
    rect = tuple(page.rect)
    px0, py0, px1, py1 = rect
    backdrop = page_backdrop(page, image_info)
    for b in page.get_text("dict", flags=TEXT_FLAGS)["blocks"]:
        if b.get("type") != 0:
            continue
        # One pass builds the block and checks each span: a span plainly visible (filled or stroked, not
        # transparent, on the page, not tiny, not near-white) skips span_reason, its call was ~1/4 of the
        # pass. Any other span asks span_reason; a hidden one sends the block down the splitting path.
        lines: list[str] = []
        chars: dict[float, int] = {}
        mono = bold = True
        size = None
        hidden = False
        for line in b["lines"]:
            parts = []
            for s in line["spans"]:
                text = s["text"]
                parts.append(text)
                if not text.strip():
                    continue
                x0, y0, x1, y1 = s["bbox"]
                sz = s["size"]
                rgb = s["color"]
                if not (s.get("char_flags", FILLED) & (FILLED | STROKED) and s.get("alpha", 255) != 0
                        and x1 > px0 and x0 < px1 and y1 > py0 and y0 < py1 and sz >= TINY_PT
                        and ((rgb >> 16) & 255 < NEAR_WHITE or (rgb >> 8) & 255 < NEAR_WHITE
                             or rgb & 255 < NEAR_WHITE)) and span_reason(s, rect, backdrop):
                    hidden = True
                    break
                flags = s["flags"]
                mono = mono and bool(flags & _MONO)
                bold = bold and bool(flags & _BOLD)
                if size is None or sz > size:
                    size = sz
                key = round(sz, 1)
                chars[key] = chars.get(key, 0) + len(text)
            if hidden:
                break
            joined = "".join(parts)
            if joined.strip():
                lines.append(joined.rstrip())
        if hidden:
            blocks.extend(_split_hidden(b, rect, backdrop))
        elif size is not None:
            bbox = b["bbox"]
            blocks.append(Block(
                kind="text", bbox=(round(bbox[0], 1), round(bbox[1], 1), round(bbox[2], 1), round(bbox[3], 1)),
                text="\n".join(lines) if mono else join_lines(lines), size=size, bold=bold, mono=mono,
                n_lines=len(lines), chars=Counter(chars)))
    return blocks


def _split_hidden(b: dict, rect, backdrop) -> list[Block]:
    """A block with hidden spans: its visible text, then one block per reason (sorted)."""
    out = []
    reasons = {id(s): span_reason(s, rect, backdrop)
               for line in b["lines"] for s in line["spans"] if s["text"].strip()}
    for reason in (None, *sorted({r for r in reasons.values() if r})):
        # whitespace-only spans stay with the visible text, where they were spaces
        lines = [{"spans": [s for s in line["spans"] if reasons.get(id(s)) == reason]} for line in b["lines"]]
        spans = [s for line in lines for s in line["spans"] if s["text"].strip()]
        if spans:
            bbox = (min(s["bbox"][0] for s in spans), min(s["bbox"][1] for s in spans),
                    max(s["bbox"][2] for s in spans), max(s["bbox"][3] for s in spans))
            out.append(_block(lines, bbox, hidden=reason))
    return out


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


def image_info_once(page: pymupdf.Page) -> Callable[[], list[dict]]:
    """`page.get_image_info()`, read on the first call only. Each call builds a text page of its own (as
    long as the page's text page), and both image_blocks and the white-text check (ingest.visibility)
    need it: a page with near-white text and images paid for two."""
    info: list[dict] | None = None

    def get() -> list[dict]:
        nonlocal info
        if info is None:
            info = page.get_image_info()
        return info

    return get


def image_blocks(page: pymupdf.Page, min_side_pt: float = 24.0,
                 image_info: Callable[[], list[dict]] | None = None) -> list[Block]:
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
    for info in (image_info or image_info_once(page))():
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
    xs = []
    x = 0.3 * page_width
    while x <= 0.7 * page_width:
        xs.append(x)
        x += 2.0
    # Chars covered at each candidate x (blocks with x0 < x < x1) as a difference array over xs: one
    # bisect per block instead of one test per block and step (~200 steps a page).
    step = [0] * (len(xs) + 1)
    for b in narrow:
        x0, x1 = b.bbox[0], b.bbox[2]
        if x0 < x1:  # (an empty or NaN extent covers nothing)
            lo, hi = bisect_right(xs, x0), bisect_left(xs, x1)
            if lo < hi:
                step[lo] += len(b.text)
                step[hi] -= len(b.text)
    best: tuple[float, float] | None = None  # (covered chars, distance from centre)
    gutter = None
    covered = 0
    for i, x in enumerate(xs):
        covered += step[i]
        key = (covered, abs(x - centre))
        if best is None or key < best:
            best, gutter = key, x
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
