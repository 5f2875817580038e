"""A lake sealed three times, and a forger's hand: helpers for the tamper tests. The lake is read and changed
through its Store only (manifests, segments, the head pointer, blobs), so each test runs on every store; this
machine's write-ahead files and witness log stay files, as they do on every store."""

import io
import json
from pathlib import PurePosixPath

import pyarrow as pa
import pyarrow.parquet as pq

from peerlake.warehouse import EventLog, Lake, LlmCall, PaperIngested
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.chain import Link
from peerlake.warehouse.commit import HEAD, MANIFESTS, SEGMENTS, manifest_bytes
from peerlake.warehouse.stores import ObjectMissing, Store
from peerlake.warehouse.verify import verify_lake

PDF = b"%PDF-1.4 a manuscript"
IMAGE = b"\x89PNG a figure"
PACKAGE = json.dumps({"title": "t", "images": [{"sha256": sha256_hex(IMAGE), "ext": "png"}]}).encode()
REQUEST, RESPONSE = b'{"messages": []}', b'{"choices": []}'


def paper(log: EventLog, i: int) -> PaperIngested:
    # Blobs first, as ingest does: the event names bytes that are already stored.
    for blob in (PDF, IMAGE, PACKAGE):
        log.blobs.put(blob)
    return PaperIngested(paper_id=f"p{i}", title=f"Paper {i}", source_uri=f"file:///p{i}.pdf",
                         pdf_sha256=sha256_hex(PDF), package_sha256=sha256_hex(PACKAGE), n_pages=1,
                         n_text_records=3, n_chars=100 + i)


def call(log: EventLog, key: str) -> LlmCall:
    return LlmCall(request_key=key, prompt_template=None, prompt_hash=None, reviewer_config="c", purpose="review",
                   subject_id="p0", sample_index=0, provider="openai", model="m", params_json="{}",
                   request_sha256=log.blobs.put(REQUEST), response_sha256=log.blobs.put(RESPONSE),
                   response_text="answer", finish_reason="stop", input_tokens=1, cached_input_tokens=0,
                   cache_write_tokens=None, output_tokens=1, reasoning_tokens=None, cost_usd=0.0,
                   cost_status="priced", price_table_version="v", latency_ms=1.0, attempt=1, status="ok")


def seal_three(log: EventLog) -> EventLog:
    """Three seals of one WAL: ranges [0,a) [a,b) [b,c), each its own manifest, chained after the genesis and
    the schema manifest."""
    log.append(paper(log, 0))
    log.seal()
    log.append_many([paper(log, 1), call(log, "k1")])
    log.seal()
    log.append(call(log, "k2"))
    log.seal()
    return log


def problems(lake: Lake) -> list[str]:
    report = verify_lake(EventLog(lake))
    assert not report.ok
    return report.problems


def name(key: str) -> str:
    return PurePosixPath(key).name


def body(store: Store, key: str) -> dict:
    return json.loads(store.get(key))


def chained(store: Store) -> list[str]:
    """Every manifest's key in seq order (numbered: `<seq:012d>.json`)."""
    return sorted((info.key for info in store.list(MANIFESTS)), key=lambda key: body(store, key)["seq"])


def range_manifests(store: Store) -> list[str]:
    """The WAL-range manifests in commit (= byte) order."""
    return [key for key in chained(store) if body(store, key).get("wal")]


def range_stem(store: Store, manifest: str) -> str:
    """The name a manifest's segments have: its write-ahead file and byte range."""
    b = body(store, manifest)
    return f"{PurePosixPath(b['wal']).stem}-{b['start']:012d}-{b['end']:012d}"


def sealed_segments(store: Store, event_type: str) -> list[str]:
    """The committed segments of a type written from a write-ahead file (not its zero-row schema segment)."""
    return [info.key for info in store.list(f"{SEGMENTS}event_type={event_type}/")
            if not name(info.key).startswith("000000-")]


def read_head(store: Store) -> Link | None:
    """The head pointer as stored."""
    try:
        d = json.loads(store.get(HEAD))
    except ObjectMissing:
        return None
    return Link(d["seq"], d["sha256"], d["manifest"])


def forged_segment(segment: bytes) -> bytes:
    """A segment's rows with new event ids and a thousand times the cost: what a forger drops into a partition."""
    table = pq.read_table(io.BytesIO(segment))
    ids = pa.array([f"FORGED{i:020d}" for i in range(table.num_rows)])
    cost = pa.array([123.0] * table.num_rows, type=table.schema.field("cost_usd").type)
    table = table.set_column(table.schema.get_field_index("event_id"), "event_id", ids)
    out = io.BytesIO()
    pq.write_table(table.set_column(table.schema.get_field_index("cost_usd"), "cost_usd", cost), out)
    return out.getvalue()


def rechain(store: Store, edit=None) -> None:
    """Apply `edit(bodies, stems)` (the chained manifests' bodies in seq order, changed in place), then re-link
    every manifest from the first changed one on and point the head at the end: a forger who knows how the
    chain works."""
    keys = chained(store)
    bodies = [body(store, key) for key in keys]
    stems = [PurePosixPath(key).stem for key in keys]
    if edit is not None:
        stems = edit(bodies, stems) or stems
    prev = None
    for stem, b, old in zip(stems, bodies, keys, strict=True):
        b["prev_sha256"] = prev
        data = manifest_bytes(b)
        if data != store.get(old) or f"{MANIFESTS}{stem}.json" != old:
            store.put(f"{MANIFESTS}{stem}.json", data)
        prev = sha256_hex(data)
    store.put(HEAD, Link(bodies[-1]["seq"], prev, stems[-1]).to_json())
