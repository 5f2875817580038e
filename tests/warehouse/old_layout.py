"""A writer of the range-named lake layout, kept only here: every local lake written before one commit protocol
served every store looks like this, and peerlake must read, verify and extend it without rewriting it.

That layout: segments written in place, `events/segments/event_type=<t>/<wal stem>-<start>-<end>.parquet`
(and `000000-schema-<t>-v<n>.parquet`); one manifest per range named like its segments, plus
`000000-chain-genesis.json` (seq 1) and one `000000-schema-<t>-v<n>.json` per event type, linked by `seq` and
`prev_sha256` (or, in a lake from before the chain, carrying neither); `events/chain_head.json` naming the
newest by its file stem; each head appended to the witness log."""

from datetime import UTC, datetime
from pathlib import Path

from ulid import ULID

from peerlake.warehouse import heads
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.chain import Link
from peerlake.warehouse.commit import GENESIS_NAME, manifest_bytes
from peerlake.warehouse.events import EVENT_TYPES, Event, to_json_line
from peerlake.warehouse.fsutil import atomic_write
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog


def _segment(lake: Lake, path: Path, rows: int) -> dict:
    return {"path": str(path.relative_to(lake.root)), "sha256": sha256_hex(path.read_bytes()), "rows": rows}


def write_old_lake(lake: Lake, batches: list[list[Event]], chained: bool = True) -> Path:
    """One write-ahead file sealed once per batch, as the range-named seal wrote it; returns the WAL's path."""
    lake.ensure()
    wal = lake.wal_dir / f"{ULID()}-oldhost-1.jsonl"
    manifests: list[tuple[str, dict]] = []
    for etype, cls in EVENT_TYPES.items():
        stem = f"000000-schema-{etype}-v{cls.schema_version}"
        path = lake.segments_dir / f"event_type={etype}" / f"{stem}.parquet"
        EventLog._write_parquet(path, cls, [])
        manifests.append((stem, {"wal": None, "segments": [_segment(lake, path, 0)], "events": 0}))
    start = 0
    for batch in batches:
        data = b"".join(to_json_line(e) for e in batch)
        with open(wal, "ab") as fh:
            fh.write(data)
        end = start + len(data)
        stem = f"{wal.stem}-{start:012d}-{end:012d}"
        by_type: dict[str, list[Event]] = {}
        for ev in batch:
            by_type.setdefault(ev.event_type, []).append(ev)
        segments = []
        for etype, evs in sorted(by_type.items()):
            path = lake.segments_dir / f"event_type={etype}" / f"{stem}.parquet"
            EventLog._write_parquet(path, EVENT_TYPES[etype], evs)
            segments.append(_segment(lake, path, len(evs)))
        manifests.append((stem, {"wal": wal.name, "start": start, "end": end, "wal_sha256": sha256_hex(data),
                                 "segments": segments, "events": len(batch)}))
        start = end
    if not chained:
        for stem, body in manifests:
            atomic_write(lake.manifests_dir / f"{stem}.json", manifest_bytes(body))
        return wal
    genesis = {"wal": None, "segments": [], "events": 0, "genesis": True,
               "created_at": datetime.now(UTC).isoformat(), "legacy_manifests": {}}
    prev = None
    for seq, (stem, body) in enumerate([(GENESIS_NAME, genesis), *manifests], start=1):
        data = manifest_bytes({**body, "seq": seq, "prev_sha256": prev})
        atomic_write(lake.manifests_dir / f"{stem}.json", data)
        prev = sha256_hex(data)
        tip = Link(seq, prev, stem)
    atomic_write(lake.chain_head, tip.to_json())
    heads.record(lake, tip)
    return wal
