"""The text of each review as the judges read it (judging.reviews: the argument fields, in order,
under their headings), rebuilt from the payloads the dbt models carry: a human or imported review's
body blob, a template review's answer text, a reviewer system's normalized review JSON."""

import json
from collections.abc import Callable

import pandas as pd

# The same field choices the judges make (judging.reviews), so overlap and prediction read one text.
from peerlake.judging.reviews import JudgedReview, argument_sections, peerlake_sections, system_sections


def _present(v) -> bool:
    return v is not None and not (isinstance(v, float) and pd.isna(v))


def _text(sections) -> str | None:
    if not sections:
        return None
    # the argument sections (depth's: summary, strengths, weaknesses), the same for humans and systems
    return JudgedReview(review_key="", paper_id="", source="", system="", sample_index=None,
                        sections=tuple(sections), event_id="").for_judge("depth").text or None


def review_text(source: str, *, body_sha256=None, response_text=None, review_json=None,
                get_text: Callable[[str], str]) -> str | None:
    """None when the review has no readable argument text (a missing blob, unparseable JSON)."""
    if source in ("human", "external"):
        if not _present(body_sha256):
            return None
        try:
            body = json.loads(get_text(body_sha256))
        except (OSError, ValueError, KeyError):
            return None
        if not isinstance(body, dict):
            return None
        if source == "external":
            t = body.get("text")
            return _text((("text", t.strip()),)) if isinstance(t, str) and t.strip() else None
        content = body.get("content", body)
        return _text(argument_sections(content if isinstance(content, dict) else {}))
    if _present(response_text):
        return _text(peerlake_sections(response_text))
    if _present(review_json):
        return _text(system_sections(review_json if isinstance(review_json, str) else json.dumps(review_json)))
    return None
