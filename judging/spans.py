"""The review text a judge reads, and where a span the judge copied from it sits (offset, exact words,
field): so a unit's `start` + `len(text)` is its true extent in `JudgedReview.text`."""

import re

from judging.base import find_verbatim
from warehouse import settings

_WS = re.compile(r"\s+")


def judged_text(review, provider: str, max_chars: int | None = None) -> str:
    """The review as the judge sees it: a prefix, so every offset in it is an offset in review.text.
    Cut to what the judge's context holds (the local model's 4k tokens hold ~6,000 characters beside
    the instructions and the answer); PRISM never cuts a review, its judges have 128k contexts."""
    limit = max_chars or settings.judge_max_chars(provider)
    return review.text[:limit]


def verbatim_span(span: str, text: str, start: int = 0) -> tuple[int, str] | None:
    """(offset, the text's own characters) of a span copied from `text`, or None when it is not there.
    Tried from `start` first (units come in review order, and a phrase may occur twice), then from 0."""
    at = find_verbatim(span, text, start)
    if at is None and start:
        at = find_verbatim(span, text, 0)
    if at is None:
        return None
    # find_verbatim matches up to whitespace runs and surrounding quotes; walk the same way to the end
    want = _WS.sub(" ", span.strip().strip('"“”\'').strip())
    i = at
    for ch in want:
        if ch == " ":
            while i < len(text) and text[i].isspace():
                i += 1
        elif i < len(text) and text[i] == ch:
            i += 1
        else:  # cannot happen while find_verbatim normalizes as above; the model's length is close
            return at, text[at:at + len(want)]
    return at, text[at:i]


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
