"""Where in a review a mention sits: the position of its anchor quote (PRISM's position recovery).

A small model's anchor is often near-verbatim (a word changed, a clause skipped), so an exact match
is tried first, then the window of the review most like the anchor, then the review's end (a
mention that cannot be placed counts as the last thing the review says).
"""

from difflib import SequenceMatcher

from peerlake.judging.base import find_verbatim

FUZZY_MIN_RATIO = 0.45  # PRISM's threshold


def _word_starts(text: str) -> list[int]:
    """Offsets where a word begins: windows start there, which keeps a 5,000-char review to ~800
    comparisons instead of 5,000 while no anchor a model copies starts mid-word."""
    return [i for i, ch in enumerate(text) if not ch.isspace() and (i == 0 or text[i - 1].isspace())]


def fuzzy_find(anchor: str, text: str, min_ratio: float = FUZZY_MIN_RATIO) -> int | None:
    """Start of the window of len(anchor) chars, beginning at a word, with the highest
    difflib ratio to the anchor (case-insensitive; the earliest on a tie), or None below min_ratio."""
    anchor = anchor.strip().lower()
    if not anchor or not text:
        return None
    lowered = text.lower()
    size = len(anchor)
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(anchor)  # difflib caches details about seq2: the anchor stays fixed
    best_pos, best = None, min_ratio
    for start in _word_starts(text):
        matcher.set_seq1(lowered[start:start + size])
        # quick_ratio bounds ratio from above: a window that cannot beat the best is skipped
        bound = matcher.quick_ratio()
        if bound < best or (best_pos is not None and bound <= best):
            continue
        ratio = matcher.ratio()
        if ratio > best or (best_pos is None and ratio >= best):
            best_pos, best = start, ratio
    return best_pos


def locate(anchor: str | None, text: str) -> tuple[int, str]:
    """(position, located_by): "exact" (find_verbatim: up to whitespace, surrounding quotes and typography),
    "fuzzy" (ratio ≥ 0.45) or "end" (position len(text)). The flaws judge names the review field at the
    position (judging.spans.field_at) as the mention's section."""
    if anchor and anchor.strip():
        if (pos := find_verbatim(anchor, text)) is not None:
            return pos, "exact"
        if (pos := fuzzy_find(anchor, text)) is not None:
            return pos, "fuzzy"
    return len(text), "end"
