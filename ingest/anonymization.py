"""What a double-blind reviewer must not see, found in a package's records.

Nothing is deleted: `anonymize` returns the records to hide with the reason, and the package keeps
them in `removed`, so every removal can be audited against the original text.
"""

import re

from peerlake.ingest.demo_corpus import SYNTHETIC_LABEL
from peerlake.ingest.package import TextRecord

EMAIL = re.compile(r"[\w.+-]+\s*@\s*[\w-]+(\.[\w-]+)+|\{[^}]*\}\s*@\s*[\w-]+(\.[\w-]+)+")
_AFFILIATION = re.compile(
    r"\b(universit(y|ät|é|à)|institute|department|dept\.|laborator(y|ies)|school of|college|"
    r"inc\.|ltd|gmbh|corporation|research (lab|center|centre)|academy)\b", re.I)
_ANON_AUTHORS = re.compile(r"^anonymous authors?\b", re.I)
_MARKS = "†‡∗*§¶♠♢♡♣♦♥☯�,;&\\d\x8e"  # footnote and affiliation marks that follow author names
_NAME_TOKEN = re.compile(rf"^([A-Z][\w'.-]*[{_MARKS}]*|and|[{_MARKS}]+)$")
_FRONT_MATTER_END = re.compile(r"^(abstract\b|1\.?\s+introduction\b|introduction\b)", re.I)
_ACK_HEADING = re.compile(r"^(\d+(\.\d+)*\.?\s+)?acknowledge?ments?\b", re.I)
_AUTHOR_NOTE = re.compile(r"(equal contribution|work (was )?done|corresponding author|contributed equally)", re.I)


def _looks_like_names(text: str) -> bool:
    tokens = text.replace(",", " , ").split()
    return 2 <= len(tokens) <= 60 and all(_NAME_TOKEN.match(t) for t in tokens)


def anonymize(records: list[TextRecord]) -> list[dict]:
    """Records a double-blind reviewer must not see: author, affiliation and e-mail lines in the
    front matter, e-mail addresses and author notes on page 1, the acknowledgements section, and
    the demo corpus's "synthetic paper" label."""
    removed: list[dict] = []

    def drop(r: TextRecord, reason: str) -> None:
        removed.append({"record_id": r.id, "reason": reason, "text": r.text})

    in_front = True
    in_ack = False
    for r in records:
        if r.kind in ("page_marker", "title", "image"):
            continue
        if in_front and (r.page > 1 or _FRONT_MATTER_END.match(r.text)):
            in_front = False
        if r.kind == "heading" or _ACK_HEADING.match(r.text):
            in_ack = bool(_ACK_HEADING.match(r.text))
        if in_ack:
            drop(r, "acknowledgements")
        elif r.page == 1 and EMAIL.search(r.text):
            drop(r, "e-mail address")
        elif in_front and r.text.startswith(SYNTHETIC_LABEL):
            # For people handling the files; a model told "not a real submission" stops reviewing.
            drop(r, "corpus label")
        elif in_front and _ANON_AUTHORS.match(r.text):
            drop(r, "author line")
        elif in_front and _AFFILIATION.search(r.text) and len(r.text) < 300:
            drop(r, "affiliation")
        elif in_front and _looks_like_names(r.text):
            drop(r, "author names")
        elif r.page == 1 and r.kind == "footnote" and _AUTHOR_NOTE.search(r.text):
            drop(r, "author note")
    return removed
