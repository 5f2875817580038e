"""The append-only event log.

Write path: each process appends JSON lines to its own write-ahead file (`events/wal/<writer>.jsonl`)
and fsyncs before `append` returns, so a completed call survives `kill -9`. Nothing is shared
between writers, so any number of processes append without locks or DuckDB.

Seal path: `seal()` (under an exclusive file lock) copies each WAL's new complete lines into typed
Parquet segments, `events/segments/event_type=<t>/<wal>-<start>-<end>.parquet`, and then commits a
manifest naming the byte range and the SHA-256 of every file. The manifest is the commit point: a
crash before it leaves segment files whose names are a pure function of the WAL range, so the next
seal finds them and commits them instead of writing duplicates. WAL files are kept forever: they are
the log's first copy and what `verify` checks each sealed range against.
"""

import contextlib
import fcntl
import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from ulid import ULID

from warehouse.blobs import BlobStore, sha256_hex
from warehouse.events import EVENT_TYPES, Event, arrow_schema, parse_line, to_json_line
from warehouse.fsutil import atomic_write, fsync_dir
from warehouse.lake import Lake


@contextlib.contextmanager
def file_lock(path: Path, shared: bool = False):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@dataclass
class SealReport:
    segments_written: int = 0
    events_sealed: int = 0
    bad_lines: list[str] = field(default_factory=list)


class _WalWriter:
    """One write-ahead file per (process, lake): every EventLog of a process shares it, so a run
    makes one WAL file, not one per asset."""

    _by_key: dict[tuple[str, int], "_WalWriter"] = {}
    _registry_lock = threading.Lock()

    def __init__(self, lake: Lake):
        self.lock = threading.Lock()
        self.path = lake.wal_dir / f"{ULID()}-{socket.gethostname()}-{os.getpid()}.jsonl"
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        fsync_dir(lake.wal_dir)

    @classmethod
    def for_lake(cls, lake: Lake) -> "_WalWriter":
        # Keyed by pid too: a forked child must not append to its parent's file.
        key = (str(lake.root), os.getpid())
        with cls._registry_lock:
            if key not in cls._by_key:
                cls._by_key[key] = cls(lake)
            return cls._by_key[key]


class EventLog:
    def __init__(self, lake: Lake | None = None):
        self.lake = (lake or Lake.default()).ensure()
        self.blobs = BlobStore(self.lake)
        self._tail_offsets: dict[str, int] = {}
        self._ensure_schema_segments()

    @property
    def wal_path(self) -> Path:
        return _WalWriter.for_lake(self.lake).path

    # ---- write -------------------------------------------------------------------------------

    def append(self, event: Event) -> Event:
        self.append_many([event])
        return event

    def append_many(self, events: list[Event]) -> None:
        """Append and fsync; when this returns the events survive a crash."""
        if not events:
            return
        data = b"".join(to_json_line(e) for e in events)
        writer = _WalWriter.for_lake(self.lake)
        with writer.lock:
            view = memoryview(data)
            while view:
                n = os.write(writer.fd, view)
                view = view[n:]
            os.fsync(writer.fd)

    def close(self) -> None:
        """Nothing to release per EventLog: the process's WAL writer stays open for its lifetime."""

    # ---- read --------------------------------------------------------------------------------
    def wal_files(self) -> list[Path]:
        return sorted(self.lake.wal_dir.glob("*.jsonl"))

    @staticmethod
    def _complete_lines(path: Path, start: int) -> tuple[bytes, int]:
        """Bytes from `start` up to the last newline (a torn final line from a crash is skipped)."""
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
        cut = data.rfind(b"\n") + 1
        return data[:cut], start + cut

    def iter_events(self, event_type: str | None = None) -> Iterator[Event]:
        """Every event in the log (from the WAL files, the first copy), each exactly once."""
        seen: set[str] = set()
        for wal in self.wal_files():
            data, _ = self._complete_lines(wal, 0)
            for ev in self._parse(data, wal.name, [], event_type):
                if ev.event_id not in seen:
                    seen.add(ev.event_id)
                    yield ev

    def count(self, event_type: str) -> int:
        """How many events of a type the log holds, without decoding them."""
        prefix = f'{{"event_type":"{event_type}",'.encode()
        # Each line starts a new event, so "\n" + prefix finds every one but the file's first.
        return sum(b"\n".join((b"", self._complete_lines(wal, 0)[0])).count(b"\n" + prefix)
                   for wal in self.wal_files())

    def tail(self) -> list[Event]:
        """Events appended by any process since this object's previous `tail()` call."""
        out: list[Event] = []
        for wal in self.wal_files():
            start = self._tail_offsets.get(wal.name, 0)
            data, end = self._complete_lines(wal, start)
            if data:
                out.extend(self._parse(data, wal.name, []))
                self._tail_offsets[wal.name] = end
        return out

    @staticmethod
    def _parse(data: bytes, where: str, bad: list[str], event_type: str | None = None) -> list[Event]:
        # to_json_line writes the type first, so other types are skipped without parsing their
        # JSON: asking for 30 papers must not decode a million llm_call lines.
        prefix = f'{{"event_type":"{event_type}",'.encode() if event_type else b""
        events = []
        for i, line in enumerate(data.splitlines()):
            if not line.strip() or not line.startswith(prefix):
                continue
            try:
                events.append(parse_line(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                bad.append(f"{where} line {i + 1}: {type(exc).__name__}: {exc}")
        return events

    # ---- seal --------------------------------------------------------------------------------
    def _manifests(self) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted(self.lake.manifests_dir.glob("*.json"))]

    def sealed_offsets(self) -> dict[str, int]:
        offsets: dict[str, int] = {}
        for m in self._manifests():
            if m.get("wal"):
                offsets[m["wal"]] = max(offsets.get(m["wal"], 0), m["end"])
        return offsets

    def seal(self) -> SealReport:
        """Copy new WAL lines into Parquet segments. Safe to run from many processes at once."""
        report = SealReport()
        with file_lock(self.lake.seal_lock):
            sealed = self.sealed_offsets()
            for wal in self.wal_files():
                start = sealed.get(wal.name, 0)
                data, end = self._complete_lines(wal, start)
                if not data:
                    continue
                events = self._parse(data, wal.name, report.bad_lines)
                self._seal_range(wal, start, end, data, events, report)
        return report

    def _seal_range(self, wal: Path, start: int, end: int, data: bytes,
                    events: list[Event], report: SealReport) -> None:
        stem = f"{wal.stem}-{start:012d}-{end:012d}"
        by_type: dict[str, list[Event]] = {}
        for ev in events:
            by_type.setdefault(ev.event_type, []).append(ev)
        segments = []
        for etype, evs in sorted(by_type.items()):
            path = self.lake.segments_dir / f"event_type={etype}" / f"{stem}.parquet"
            if not path.exists():  # else: written by a seal that crashed before its manifest
                self._write_parquet(path, EVENT_TYPES[etype], evs)
                report.segments_written += 1
            segments.append({"path": str(path.relative_to(self.lake.root)),
                             "sha256": sha256_hex(path.read_bytes()), "rows": len(evs)})
        manifest = {"wal": wal.name, "start": start, "end": end, "wal_sha256": sha256_hex(data),
                    "segments": segments, "events": len(events)}
        atomic_write(self.lake.manifests_dir / f"{stem}.json", json.dumps(manifest, indent=1).encode())
        report.events_sealed += len(events)

    @staticmethod
    def _write_parquet(path: Path, cls: type[Event], events: list[Event]) -> None:
        schema = arrow_schema(cls)
        rows = []
        for ev in events:
            rec = ev.to_record()
            rec["occurred_at"] = ev.occurred_at
            rows.append(rec)
        table = pa.Table.from_pylist(rows, schema=schema)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)

    def _ensure_schema_segments(self) -> None:
        """One zero-row segment per event type and schema version, so every source glob matches
        at least one file (DuckDB errors on an empty glob) and carries the full column set."""
        for etype, cls in EVENT_TYPES.items():
            stem = f"000000-schema-{etype}-v{cls.schema_version}"
            mpath = self.lake.manifests_dir / f"{stem}.json"
            if mpath.exists():
                continue
            with file_lock(self.lake.seal_lock):
                if mpath.exists():
                    continue
                path = self.lake.segments_dir / f"event_type={etype}" / f"{stem}.parquet"
                if not path.exists():
                    self._write_parquet(path, cls, [])
                manifest = {"wal": None, "segments": [{
                    "path": str(path.relative_to(self.lake.root)),
                    "sha256": sha256_hex(path.read_bytes()), "rows": 0}], "events": 0}
                atomic_write(mpath, json.dumps(manifest, indent=1).encode())
