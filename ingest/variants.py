"""Paper variants: manuscripts an experiment makes from another (a contradiction inserted, hidden text
injected). A built variant is ingested like any PDF, under its own paper id, so every reviewer reads
it unchanged; its `paper_variant` event says what it was made from and how. One that could not be
built is recorded too (built = false, with the reason): a benchmark counts its drops.

The variant key is derived from everything that determines the variant, so a replayed build finds
its event and neither re-renders nor re-ingests anything.
"""

import hashlib
import json
from collections.abc import Callable, Iterable

from peerlake.ingest.extraction import extract_package
from peerlake.ingest.package import ManuscriptError, ManuscriptPackage
from peerlake.warehouse import settings
from peerlake.warehouse.events import PaperIngested, PaperVariantRecorded
from peerlake.warehouse.log import EventLog

# A revision's final manuscript (reviewing.revision) is text-level: built from the package's records,
# not from a PDF, so it names its base's PDF as the bytes its text came from; so is a stress edit
# (ingest.stress, judging.stress).
KINDS = ("contradiction", "hidden_text", "revision", "stress")


def variant_key(kind: str, base_package_sha256: str, experiment_config: str, details: dict,
                request_keys: Iterable[str] = ()) -> str:
    ident = {"kind": kind, "base": base_package_sha256, "config": experiment_config, "details": details,
             "requests": sorted(set(request_keys))}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def variant_paper_id(base_paper_id: str, kind: str, key: str) -> str:
    """"<base>~<kind>-<key10>" (ingest.package.base_of reads the base back)."""
    return f"{base_paper_id}~{kind}-{key[:10]}"


def recorded_variants(log: EventLog) -> dict[str, PaperVariantRecorded]:
    """Every recorded variant, by variant key."""
    return {e.variant_key: e for e in log.iter_events("paper_variant")}


def record_variant(log: EventLog, base: PaperIngested, *, kind: str, experiment_config: str, details: dict,
                   pdf_bytes: bytes | None, reason: str | None = None, package: ManuscriptPackage | None = None,
                   verify: Callable[[ManuscriptPackage], str | None] | None = None,
                   judgment_keys: Iterable[str] = (), request_keys: Iterable[str] = (),
                   study: str | None = None,
                   known: dict[str, PaperVariantRecorded] | None = None) -> tuple[PaperVariantRecorded, bool]:
    """Record one variant of `base` (and ingest it when `pdf_bytes` is given and readable). Returns the
    event and whether it is new. `reason` given (or no bytes) records a variant that was not built;
    `package` given (no bytes) records a text-level variant whose package was built already;
    `verify(package)` may refuse a built one by returning a reason (e.g. the edit is not in the text the
    re-rendered PDF gives back). Blobs go in before the events that name them."""
    if kind not in KINDS:
        raise ValueError(f"variant kind {kind!r}: one of {', '.join(KINDS)}")
    request_keys = sorted(set(request_keys))
    key = variant_key(kind, base.package_sha256, experiment_config, details, request_keys)
    known = recorded_variants(log) if known is None else known
    if key in known:
        return known[key], False
    vid = variant_paper_id(base.paper_id, kind, key)
    pdf_sha = package_sha = None
    images: dict = {}
    if reason is None and pdf_bytes is None and package is None:
        reason = "no_manuscript"
    if reason is None and package is not None:
        reason = verify(package) if verify is not None else None
    elif reason is None:
        try:
            package, images = extract_package(pdf_bytes, max_pages=settings.ingest_max_pages(),
                                              max_images=settings.ingest_max_images())
        except ManuscriptError as exc:
            reason = f"unreadable: {exc}"
        else:
            reason = verify(package) if verify is not None else None
    if reason is None:
        for blob in images.values():
            log.blobs.put(blob)
        package_sha = log.blobs.put_text(package.to_json())
        pdf_sha = log.blobs.put(pdf_bytes) if pdf_bytes is not None else base.pdf_sha256
        log.append(PaperIngested(
            paper_id=vid, title=package.title or base.title, source_uri=f"variant:{base.paper_id}:{kind}",
            pdf_sha256=pdf_sha, package_sha256=package_sha, n_pages=package.n_pages,
            n_text_records=package.n_text_records, n_chars=package.n_chars, venue=base.venue, is_synthetic=True,
            n_images=package.n_images, body_chars=package.part_chars("front", "body"),
            appendix_chars=package.part_chars("appendix"), references_chars=package.part_chars("references"),
            n_references=len(package.references), n_sections=len(package.sections), year=base.year,
            area=base.area, n_hidden_records=package.n_hidden_records))
    event = PaperVariantRecorded(
        variant_key=key, variant_id=vid, kind=kind, base_paper_id=base.paper_id,
        base_package_sha256=base.package_sha256, experiment_config=experiment_config, built=reason is None,
        reason=reason, pdf_sha256=pdf_sha, package_sha256=package_sha,
        details_json=json.dumps(details, sort_keys=True, ensure_ascii=False),
        judgment_keys_json=json.dumps(sorted(set(judgment_keys))), request_keys_json=json.dumps(request_keys),
        study=study)
    log.append(event)
    known[key] = event
    return event, True
