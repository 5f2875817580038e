"""Which event fields name a blob, and every such reference in the log, for `verify`.

Each `*_sha256` field of an event type is listed here once: either in BLOB_FIELDS (the blob store
holds those bytes, written before the event) or in NOT_BLOBS with the reason it is only a hash.
tests/warehouse/test_tamper_evidence.py fails when a new `*_sha256` field is in neither, so a new
event type cannot reference blobs that `verify` never checks.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from peerlake.warehouse.log import EventLog

_LLM_CALL_BLOBS = ("request_sha256", "response_sha256", "logprobs_sha256")

BLOB_FIELDS: dict[str, tuple[str, ...]] = {
    "paper_ingested": ("pdf_sha256", "package_sha256"),  # the package's images: see package_images
    "human_review_imported": ("body_sha256",),
    "llm_call": _LLM_CALL_BLOBS,
    "llm_call_duplicated": _LLM_CALL_BLOBS,
    "prompt_template_stored": ("source_sha256",),
    "external_review_imported": ("body_sha256",),
    "study_resolved": ("study_sha256",),
    "price_table_recorded": ("source_sha256",),
    "llm_batch_submitted": ("input_sha256",),
    "llm_batch_finished": ("output_sha256",),
    "system_review": ("package_sha256",),  # the manuscript package the system read (written at ingest)
    # a variant's base package, and its own PDF and package (null when it could not be built)
    "paper_variant": ("base_package_sha256", "pdf_sha256", "package_sha256"),
    "withdrawal_note_imported": ("comment_sha256",),
    "human_label_imported": ("mapping_sha256",),  # the label mapping file that mapped the row
}

NOT_BLOBS: dict[tuple[str, str], str] = {
    ("ingest_rejected", "content_sha256"): "the rejected file's hash; a rejected input is not kept",
    ("span_annotation_imported", "text_sha256"): "the dataset's raw review text, which the lake does not keep "
                                                 "(the judged text is the imported review's body blob)",
    ("human_label_entered", "text_sha256"): "the judged text's hash, as the judgment records it; the text is "
                                            "rebuilt from the review's own blob or answer",
}


@dataclass(frozen=True)
class BlobRef:
    event_type: str
    event_id: str
    field: str
    sha256: str
    occurred_at: datetime | None


def iter_blob_refs(log: EventLog, manifests: list[dict]) -> Iterator[BlobRef]:
    """Every (event, field, blob) in the committed segments and in the unsealed WAL tails.

    Segments are read for the hash columns only, so a million-call lake is not decoded in full.
    A segment that cannot be read is skipped: verify reports it as missing or modified already."""
    sealed_end: dict[str, int] = {}
    for m in manifests:
        if m.get("wal"):
            sealed_end[m["wal"]] = max(sealed_end.get(m["wal"], 0), m["end"])
        for seg in m.get("segments", []):
            etype = Path(seg["path"]).parent.name.removeprefix("event_type=")
            if etype in BLOB_FIELDS and seg.get("rows"):
                yield from _segment_refs(_segment_path(log, seg["path"]), etype)
    for wal in log.wal_files():
        data, _ = log._complete_lines(wal, sealed_end.get(wal.name, 0))
        for ev in log._parse(data, wal.name, [], tuple(BLOB_FIELDS)):
            for name in BLOB_FIELDS[ev.event_type]:
                if sha := getattr(ev, name, None):
                    yield BlobRef(ev.event_type, ev.event_id, name, sha, ev.occurred_at)


def _segment_path(log: EventLog, rel_path: str) -> Path | None:
    """This machine's copy of a committed segment (None when it cannot be had: verify names it)."""
    try:
        return log.chain.segment_file(rel_path)
    except (OSError, RuntimeError):
        return None


def _segment_refs(path: Path | None, etype: str) -> Iterator[BlobRef]:
    if path is None:
        return
    try:
        pf = pq.ParquetFile(path)
        cols = [c for c in ("event_id", "occurred_at", *BLOB_FIELDS[etype]) if c in pf.schema_arrow.names]
        rows = pf.read(columns=cols).to_pylist()
    except (OSError, pa.ArrowException):
        return
    for row in rows:
        for name in BLOB_FIELDS[etype]:
            if sha := row.get(name):
                yield BlobRef(etype, row["event_id"], name, sha, row.get("occurred_at"))


def package_images(package_json: bytes) -> list[str]:
    """The image blobs a manuscript package names (its `images[].sha256`)."""
    try:
        images = json.loads(package_json).get("images") or []
    except (ValueError, AttributeError):
        return []
    return [img["sha256"] for img in images if isinstance(img, dict) and img.get("sha256")]
