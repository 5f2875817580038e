"""The review text a judge reads, and where a span the judge copied from it sits (offset, exact words,
field): so a unit's `start` + `len(text)` is its true extent in `JudgedReview.text`."""

from peerlake.judging.base import Verbatim, match_verbatim
from peerlake.warehouse import settings


def judged_text(review, provider: str, max_chars: int | None = None) -> str:
    """The review as the judge sees it: a prefix, so every offset in it is an offset in review.text.
    Cut to what the judge's context holds (the local model's 4k tokens hold ~6,000 characters beside
    the instructions and the answer); PRISM never cuts a review, its judges have 128k contexts."""
    limit = max_chars or settings.judge_max_chars(provider)
    return review.text[:limit]


def locate_span(span: str, text: str, start: int = 0) -> Verbatim | None:
    """Where a span copied from `text` sits (see base.match_verbatim), or None when it is not there.
    Tried from `start` first (units come in review order, and a phrase may occur twice), then from 0."""
    hit = match_verbatim(span, text, start)
    if hit is None and start:
        hit = match_verbatim(span, text, 0)
    return hit


def verbatim_span(span: str, text: str, start: int = 0) -> tuple[int, str] | None:
    """(offset, the text's own characters) of a span copied from `text`, or None when it is not there
    (see locate_span): the characters run from the first matched one to the last, so a span quoted
    without the review's markdown keeps the review's own ** and curly quotes inside it."""
    hit = locate_span(span, text, start)
    return None if hit is None else (hit.start, text[hit.start:hit.end])


def _layout(review) -> list[tuple[int, int, str]]:
    """(heading offset, body offset, field) per section of review.text; [] if it is built otherwise."""
    pos, out = 0, []
    for name, body in review.sections:
        heading = f"{name.replace('_', ' ').capitalize()}:\n"
        out.append((pos, pos + len(heading), name))
        pos += len(heading) + len(body) + 2
    return out if pos - 2 == len(review.text) else []  # do not guess at a text built differently


def field_at(review, offset: int) -> str | None:
    """The review field (summary, weaknesses ...) whose section holds `offset` in review.text."""
    found = None
    for begin, _, name in _layout(review):
        if begin <= offset:
            found = name
    return found


def heading_end(review, offset: int) -> int | None:
    """Where the body starts if `offset` is at a section heading ("Weaknesses:\n"): a heading is our
    formatting of the review's fields, not the reviewer's words, so a unit must not begin with one."""
    for begin, body, _ in _layout(review):
        if begin <= offset < body:
            return body
    return None
