"""The package surgery the stress edits share: prose records, sentences, the numbers and citation
markers a presentation edit must keep, replacing / dropping / inserting records, and the checks."""

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field

from peerlake.ingest.package import ManuscriptPackage, TextRecord

# A number as a reader checks it: 91.8, 0.4, 300, 1e-4 reads as 1 and 4 (a typo or paraphrase that keeps
# both digits keeps the value). Thousands separators split too (5,000 → 5 and 000): both sides alike.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Citation markers: numeric brackets ([1], [2, 3], [4–6]) and author-year (Hu et al., 2022 / Hu et al. 2022).
_CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]|\b[A-Z][\w'-]+ et al\.?,? \(?\d{4}[a-z]?\)?")
# A sentence ends at . ! ? followed by space and a capital, a bracket or a digit; "et al." and "e.g." are not ends.
_SENTENCE_END = re.compile(r"(?<!\bet al\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+(?=[A-Z(\[0-9])")
PROSE_KINDS = ("paragraph", "footnote")


@dataclass(frozen=True)
class Edited:
    """What one edit made of one package: the new package, or None with the reason it was not built."""

    package: ManuscriptPackage | None
    reason: str | None = None
    params: dict = field(default_factory=dict)
    problem: str | None = None  # soundness edits: what a careful review should mention
    checks: dict = field(default_factory=dict)  # {name: {"passed": bool, "detail": str}}

    @property
    def failed_check(self) -> str | None:
        return next((name for name, c in self.checks.items() if not c["passed"]), None)


def not_built(reason: str, **params) -> Edited:
    return Edited(package=None, reason=reason, params=params)


def check(passed: bool, detail: str) -> dict:
    return {"passed": bool(passed), "detail": detail}


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def citations(text: str) -> list[str]:
    return [" ".join(m.split()) for m in _CITATION.findall(text)]


def markers(text: str) -> Counter:
    """The numbers and citation markers of a text, as a multiset: what a presentation edit must keep."""
    return Counter(numbers(text)) + Counter(f"cite:{c}" for c in citations(text))


def marker_difference(before: str, after: str) -> list[str]:
    """The numbers and citation markers one text has and the other lacks (either way), sorted."""
    a, b = markers(before), markers(after)
    return sorted(((a - b) + (b - a)).elements())


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def hidden_ids(package: ManuscriptPackage) -> set[str]:
    """Records no reader sees: removed by anonymization, or flagged hidden on the rendered page."""
    return {r["record_id"] for r in package.removed} | {h["record_id"] for h in package.hidden}


def prose(package: ManuscriptPackage, parts: tuple[str, ...] = ("front", "body")) -> list[TextRecord]:
    """The visible prose records (paragraphs, footnotes) of these parts, in reading order."""
    gone = hidden_ids(package)
    return [r for r in package.records
            if r.kind in PROSE_KINDS and r.part in parts and r.id not in gone and r.text.strip()]


def edited(package: ManuscriptPackage, texts: dict[str, str] | None = None, drop: set[str] = frozenset(),
           insert_after: dict[str, TextRecord] | None = None) -> ManuscriptPackage:
    """The package with some records' text replaced, some dropped (with what `removed` and `hidden` say of
    them) and new records inserted after named ones; every other field and record kept as it was."""
    texts, insert_after = texts or {}, insert_after or {}
    records = []
    for r in package.records:
        if r.id not in drop:
            records.append(dataclasses.replace(r, text=texts[r.id]) if r.id in texts else r)
        if r.id in insert_after:
            records.append(insert_after[r.id])
    return dataclasses.replace(package, records=records, n_chars=sum(len(r.text) for r in records),
                               removed=[x for x in package.removed if x["record_id"] not in drop],
                               hidden=[x for x in package.hidden if x["record_id"] not in drop])


def changed_outside(original: ManuscriptPackage, new: ManuscriptPackage, allowed: set[str]) -> list[str]:
    """Ids of records outside `allowed` that the edit added, dropped or changed in any field."""
    before = {r.id: r for r in original.records}
    after = {r.id: r for r in new.records}
    out = [i for i in before if i not in allowed and before[i] != after.get(i)]
    out += [i for i in after if i not in allowed and i not in before]
    kept = [i for i in after if i in before and i not in allowed]
    if kept != [i for i in before if i in after and i not in allowed]:
        out.append("record_order")
    return out


def nothing_else(original: ManuscriptPackage, new: ManuscriptPackage, allowed: set[str]) -> dict:
    bad = changed_outside(original, new, allowed)
    return check(not bad, f"{len(bad)} other records changed" + (f": {', '.join(bad[:5])}" if bad else ""))


def markers_kept(original: ManuscriptPackage, new: ManuscriptPackage) -> dict:
    """Every number and citation marker of the visible text is still there, as often as before."""
    diff = marker_difference(_visible_text(original), _visible_text(new))
    return check(not diff, "numbers and citation markers unchanged" if not diff else f"differ: {', '.join(diff[:10])}")


def _visible_text(package: ManuscriptPackage) -> str:
    gone = hidden_ids(package)
    return "\n".join(r.text for r in package.records if r.id not in gone and r.kind not in ("page_marker", "image"))
