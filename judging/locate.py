"""Where in a review a quote or a mention sits: PRISM's position recovery, and placing a quote a judge
shortened.

A small model's anchor is often near-verbatim (a word changed, a clause skipped), so an exact match
is tried first, then the window of the review most like the anchor, then the review's end (a
mention that cannot be placed counts as the last thing the review says).

A hosted judge quotes the way PRISM's does: it straightens typography, elides (`...`), joins a numbered
list into one sentence, swaps "good" for 'good', and writes LaTeX into its own JSON unescaped, so
`$\\hat{\\theta}$` arrives with a tab for `\\t`. `place_quote` finds such a quote in the review: verbatim
(judging.base.match_verbatim), else on a loose key of both texts (words only, case-folded, Unicode
NFKC, Greek letters and LaTeX commands by name, list markers at line starts dropped), else piece by
piece in order around each elision. A quote found none of these ways is not the reviewer's words as far
as peerlake can tell; judging.flaws keeps its raise all the same (PRISM's rule) and flags it.
"""

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from peerlake.judging.base import find_verbatim, match_verbatim

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
    "placed" (place_quote's loose or elided match), "fuzzy" (ratio ≥ 0.45) or "end" (position len(text)).
    PRISM tries its exact match, then fuzzy, then the end; a shortened anchor placed by its own words sits
    where those words are, where a fuzzy window would only be near them. The flaws judge names the review
    field at the position (judging.spans.field_at) as the mention's section."""
    if anchor and anchor.strip():
        if (pos := find_verbatim(anchor, text)) is not None:
            return pos, "exact"
        if (placed := place_quote(anchor, text)) is not None:
            return placed.start, "placed"
        if (pos := fuzzy_find(anchor, text)) is not None:
            return pos, "fuzzy"
    return len(text), "end"


# ---- placing a quote the judge shortened -------------------------------------------------------------

# How a quote was placed, strictest first: the verbatim check's two ("strict", "normalized"), then
# "loose" (the loose key) and "elided" (pieces around `...` in order). VERBATIM is the old rule's.
VERBATIM = ("strict", "normalized")
PLACED = (*VERBATIM, "loose", "elided")
MIN_KEY_CHARS = 12  # a loose key shorter than this ("the method") would be found in any review
# LaTeX commands that decorate a symbol, not name one: \hat{\theta} and θ̂ are both "theta"
_DECORATIONS = frozenset({
    "hat", "widehat", "tilde", "widetilde", "bar", "overline", "underline", "vec", "dot", "ddot", "acute",
    "grave", "check", "breve", "mathbf", "mathrm", "mathit", "mathcal", "mathbb", "mathfrak", "mathsf",
    "mathscr", "boldsymbol", "bm", "text", "textbf", "textit", "textrm", "emph", "operatorname", "left",
    "right", "big", "bigg", "Big", "Bigg", "displaystyle", "scriptstyle", "limits", "nolimits"})
_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
          "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
          "ξ": "xi", "ο": "omicron", "π": "pi", "ρ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau",
          "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega"}
# The escapes a judge's JSON turns a LaTeX command into when it forgets to double the backslash:
# "\theta" → tab + "heta", "\beta" → backspace, "\frac" → form feed, "\rho" → CR, "\nabla" → newline
_JSON_ESCAPES = {"\t": "t", "\b": "b", "\f": "f", "\r": "r", "\n": "n"}
_MANGLED = re.compile(r"[\t\b\f\r]|\n(?=[a-z])")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
# A list marker at the start of a line ("1)", "2.", "(a)", "iii)", "W1:", "-", "•"): a judge that joins a
# list into one sentence drops them; one that follows a sentence's end inside a quote is one too.
_MARKER = re.compile(r"(?:^|(?<=\n)|(?<=[.?!:;]\s))[ \t]*(?:[-*•·◦‣▪]|\(?(?:\d{1,2}|[A-Za-z]|[ivxIVX]{1,4})[.)]"
                     r"|[A-Z]\d{1,2}[.:)]?)(?=\s)")
_ELISION = re.compile(r"\[\s*(?:\.{3,}|…)\s*\]|\(\s*(?:\.{3,}|…)\s*\)|\.{3,}|…")


@dataclass(frozen=True)
class Placed:
    """Where a quote sits in a text, [start, end) in the original, and how it was found (PLACED)."""

    start: int
    end: int
    how: str


def _emit(ch: str) -> str:
    """A character's part of the loose key: its word characters (NFKC, case-folded, Greek by name),
    or a space for anything else."""
    out = []
    for c in unicodedata.normalize("NFKC", ch).casefold():
        out.append(f" {_GREEK[c]} " if c in _GREEK else c if c.isalnum() else " ")
    return "".join(out)


def _loose(text: str, markers: bool = True) -> tuple[str, list[int]]:
    """The loose key of `text`, word characters separated by single spaces, and each key character's
    offset in `text`. LaTeX decorations vanish, other commands are their names; list markers (at line
    starts, or after a sentence's end) are dropped."""
    skip: dict[int, int] = {}
    if markers:
        for m in _MARKER.finditer(text):
            skip[m.start()] = m.end()
    key, where = [], []
    i = 0
    while i < len(text):
        if i in skip:
            i = skip[i]
            continue
        m = _COMMAND.match(text, i)
        if m:
            piece = "" if m.group(1) in _DECORATIONS else f" {m.group(1).casefold()} "
            end = m.end()
        else:
            piece, end = _emit(text[i]), i + 1
        for c in piece:
            if c == " " and (not key or key[-1] == " "):
                continue
            key.append(c)
            where.append(i)
        i = end
    return "".join(key), where


@lru_cache(maxsize=64)
def _text_key(text: str) -> tuple[str, list[int]]:
    return _loose(text)


def _find_key(piece: str, text: str, from_key: int) -> tuple[int, int] | None:
    """[start, end) in text-key offsets of the piece's loose key, at or after from_key."""
    want = _loose(piece)[0].strip()
    if not want:
        return None
    key, _ = _text_key(text)
    k = key.find(want, from_key)
    while k > 0 and key[k - 1] != " ":  # a piece starts at a word; it may end mid-word (a cut quote)
        k = key.find(want, k + 1)
    return (k, k + len(want)) if k >= 0 else None


def _spans(text: str, hits: list[tuple[int, int]]) -> tuple[int, int]:
    _, where = _text_key(text)
    return where[hits[0][0]], where[hits[-1][1] - 1] + 1


def _place_loose(quote: str, text: str, start_key: int) -> Placed | None:
    if len(_loose(quote)[0].strip()) < MIN_KEY_CHARS:
        return None
    hit = _find_key(quote, text, start_key)
    if hit is not None:
        return Placed(*_spans(text, [hit]), "loose")
    pieces = [p for p in _ELISION.split(quote) if _loose(p)[0].strip()]
    if len(pieces) < 2 and not _ELISION.search(quote):
        return None
    hits, at = [], start_key
    for piece in pieces:
        hit = _find_key(piece, text, at)
        if hit is None:
            return None
        hits.append(hit)
        at = hit[1]
    return Placed(*_spans(text, hits), "elided") if hits else None


def place_quote(quote: str | None, text: str, start: int = 0) -> Placed | None:
    """Where a judge's quote of `text` sits, at or after `start`, and how it was found (PLACED, strictest
    first), or None. A quote with a tab, backspace, form feed, carriage return or newline-before-a-letter
    is tried again with each read as the LaTeX command the judge's unescaped JSON made of it."""
    if not isinstance(quote, str) or not quote.strip() or not text:
        return None
    if (hit := match_verbatim(quote, text, start)) is not None:
        return Placed(hit.start, hit.end, hit.how)
    key, where = _text_key(text)
    start_key = next((k for k, i in enumerate(where) if i >= start), len(key))
    candidates = [quote]
    if _MANGLED.search(quote):
        candidates.append(_MANGLED.sub(lambda m: "\\" + _JSON_ESCAPES[m.group(0)], quote))
    for candidate in candidates:
        if (placed := _place_loose(candidate, text, start_key)) is not None:
            return placed
    return None
