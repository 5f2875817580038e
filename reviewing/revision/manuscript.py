"""The revision's artefacts over a manuscript package: what the Writer sees, the candidate its edits
make, the block diffs, the final manuscript (accepted diffs only) and the structural checks that
must pass before any Scorer reads it ("Can We Believe AI Peer Review?").

Everything here is a pure function of packages and parsed answers, so a replayed run rebuilds the
same candidate, the same diff ids and the same final package hash.
"""

import dataclasses
import hashlib
from dataclasses import dataclass

from peerlake.ingest.package import ManuscriptPackage, TextRecord

# Records the Writer never touches (seed: "leading instruction records and page-marker text").
# `removed` records (what anonymization hid) are protected too: rewriting them would leak or
# restore what the reviewers must not see.
PROTECTED_KINDS = ("page_marker", "image", "title", "reference", "equation", "table", "preformatted")


@dataclass(frozen=True)
class Edit:
    record_id: str
    new_text: str


@dataclass(frozen=True)
class Diff:
    """One changed record: a stable id (d0001 … in reading order) and both texts."""

    diff_id: str
    record_id: str
    page: int
    original: str
    revised: str


def editable_records(package: ManuscriptPackage, kinds: tuple[str, ...], max_chars: int) -> list[TextRecord]:
    """The records the Writer is shown and may replace: editable kinds of the front matter and body,
    not anonymized away, in reading order, until `max_chars` of text (0: all)."""
    removed = {r["record_id"] for r in package.removed}
    hidden = {h["record_id"] for h in package.hidden}
    out, used = [], 0
    for r in package.records:
        if r.kind not in kinds or r.kind in PROTECTED_KINDS or r.part not in ("front", "body") \
                or r.id in removed or r.id in hidden or not r.text.strip():
            continue
        if max_chars and used + len(r.text) > max_chars and out:
            break
        out.append(r)
        used += len(r.text)
    return out


def protected_ids(package: ManuscriptPackage, editable: list[TextRecord]) -> set[str]:
    allowed = {r.id for r in editable}
    return {r.id for r in package.records if r.id not in allowed}


def diffs_of(package: ManuscriptPackage, edits: list[Edit]) -> list[Diff]:
    """Block diffs between the original and the candidate (original records with the edits applied):
    one per record whose text really changes (whitespace alone is no change), numbered in reading
    order. Edits must already be validated (known, editable, one per record)."""
    new = {e.record_id: e.new_text.strip() for e in edits}
    out = []
    for r in package.records:
        if r.id in new and " ".join(new[r.id].split()) != " ".join(r.text.split()):
            out.append(Diff(f"d{len(out) + 1:04d}", r.id, r.page, r.text, new[r.id]))
    return out


def final_package(package: ManuscriptPackage, diffs: list[Diff], accepted: set[str]) -> ManuscriptPackage:
    """The original records with only the accepted diffs' text replaced; every other field kept."""
    text = {d.record_id: d.revised for d in diffs if d.diff_id in accepted}
    records = [dataclasses.replace(r, text=text[r.id]) if r.id in text else r for r in package.records]
    return dataclasses.replace(package, records=records, n_chars=sum(len(r.text) for r in records))


def package_sha(package: ManuscriptPackage) -> str:
    return hashlib.sha256(package.to_json().encode("utf-8")).hexdigest()


def structural_checks(original: ManuscriptPackage, final: ManuscriptPackage, changed: set[str],
                      protected: set[str], image_ok) -> dict[str, dict]:
    """The paper's validators, one entry per check: {passed, detail}. `changed` = record ids whose text may differ
    (the accepted diffs); `image_ok(sha256)` re-hashes one stored image (False when missing or altered).
    Record count and order, every non-text field, protected texts, the image index, every image."""
    checks: dict[str, dict] = {}

    def put(name: str, bad: list, what: str) -> None:
        checks[name] = {"passed": not bad, "detail": f"{len(bad)} {what}" + (f": {', '.join(map(str, bad[:5]))}"
                                                                              if bad else "")}

    same_order = [r.id for r in original.records] == [r.id for r in final.records]
    checks["record_order"] = {"passed": same_order, "detail": f"{len(original.records)} → {len(final.records)} records"}
    fields = [f.name for f in dataclasses.fields(TextRecord) if f.name != "text"]
    put("non_text_fields", [a.id for a, b in zip(original.records, final.records, strict=False)
                            if any(getattr(a, f) != getattr(b, f) for f in fields)], "records with a changed field")
    put("protected_text", [a.id for a, b in zip(original.records, final.records, strict=False)
                           if a.id in protected and a.text != b.text], "protected records changed")
    put("only_accepted_changed", [a.id for a, b in zip(original.records, final.records, strict=False)
                                  if a.text != b.text and a.id not in changed], "records changed without a diff")
    put("image_index", [] if original.images == final.images else ["index differs"], "image index differences")
    bad_images = [img["sha256"][:12] for img in final.images if not image_ok(img["sha256"])]
    put("image_hashes", bad_images, f"of {len(final.images)} images missing or altered")
    top = {f.name for f in dataclasses.fields(ManuscriptPackage)} - {"records", "n_chars"}
    put("package_fields", sorted(f for f in top if getattr(original, f) != getattr(final, f)), "package fields changed")
    return checks
