"""The append-only event log.

Write path: each process appends JSON lines to its own write-ahead file (`events/wal/<writer>.jsonl`)
and fsyncs before `append` returns, so a completed call survives `kill -9`. Nothing is shared
between writers, so any number of processes append without locks or DuckDB.

Seal path: `seal()` copies each WAL's new complete lines into typed Parquet segments, staged first and
committed by a numbered manifest created with a conditional put on the lake's store (this disk, object
storage or memory alike; warehouse/commit.py), then copied to
`events/segments/event_type=<t>/<wal>-<start>-<end>.parquet`. The manifest is the commit point; the seal
flock only spares this machine's processes a lost race. A type with a uniqueness rule
(`Event.duplicate_type`: one successful `llm_call` per request_key) never gets a second sealed
event per key: the later one goes to its duplicate partition, kept for the audit. Every manifest is a
link of one hash chain (`seq`, `prev_sha256`), so `verify` notices a deleted, rewritten or reordered
commit. A lake written before this protocol keeps its range-named manifests, read into the same chain.

Read path: the sealed segments (listed by a manifest) plus each WAL's lines after its sealed end.
So a lost WAL file loses nothing that was sealed, and nothing is read twice. On a lake with a URL,
`tail()` also returns what other machines commit.
"""

import contextlib
import json
import os
import re
import socket
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pyarrow as pa
import pyarrow.parquet as pq
from ulid import ULID

from peerlake.warehouse.blobs import BlobStore, lake_store
from peerlake.warehouse.chain import Link
from peerlake.warehouse.claims import request_claim
from peerlake.warehouse.commit import NumberedChain, NumberedSealer
from peerlake.warehouse.events import EVENT_TYPES, Event, arrow_schema, parse_line, to_json_line
from peerlake.warehouse.fsutil import file_lock, fsync_dir
from peerlake.warehouse.lake import Lake

__all__ = ["EventLog", "SealReport", "file_lock"]

_LOCK_NAME = re.compile(r"[A-Za-z0-9_\-]+(/[A-Za-z0-9_\-]+)*")
# A segment named for the WAL range it was written from: <wal stem>-<start>-<end> (12 digits each)
RANGE_STEM = re.compile(r"(?P<wal>.+)-(?P<start>\d{12})-(?P<end>\d{12})")


@dataclass
class SealReport:
    segments_written: int = 0
    events_sealed: int = 0
    duplicates: int = 0  # events routed to a duplicate partition (see Event.duplicate_type)
    bad_lines: list[str] = field(default_factory=list)
    head: Link | None = None  # the chain's head after the seal: the hash to keep (`peerlake verify --head H`)


class _WalWriter:
    """One write-ahead file per (process, lake): every EventLog of a process shares it, so a run
    makes one WAL file, not one per asset.

    Group commit: appends are written one at a time (under `lock`), but the fsync that makes them
    durable is shared. Each write takes a ticket; a thread whose ticket is not yet durable either
    waits for the fsync in progress or, if none is running, leads one that covers every ticket
    written so far. So N threads appending at once pay about two fsyncs, not N, and `append`
    still returns only once its own bytes are on disk."""

    _by_key: ClassVar[dict[tuple[str, int], "_WalWriter"]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, lake: Lake):
        self.lock = threading.Lock()  # one write (or file switch) at a time
        # Lock order: `lock` may be held while taking `_synced_cv`, never the other way round.
        self._synced_cv = threading.Condition(threading.Lock())  # guards the fields below
        self._written = 0  # ticket of the last complete write (bumped under `lock`)
        self._synced = 0  # every ticket <= this is durable
        self._syncing = False  # a leader is inside fsync
        self._retired: list[int] = []  # fds of removed files that a running fsync may still use
        self.fsyncs = 0  # fsyncs made for appends (tests and benchmarks read it)
        self.lake = lake
        self._open()

    def _open(self) -> None:
        self.path = self.lake.wal_dir / f"{ULID()}-{socket.gethostname()}-{os.getpid()}.jsonl"
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        fsync_dir(self.lake.wal_dir)

    def ensure_linked(self) -> None:
        """Start a new file if ours was removed: appends to an unlinked file would be lost.
        Called under `lock`."""
        if os.fstat(self.fd).st_nlink == 0:
            old = self.fd
            self._open()
            with self._synced_cv:
                if self._syncing:  # the leader may be inside fsync(old): it closes it when done
                    self._retired.append(old)
                else:
                    os.close(old)

    def append(self, data: bytes) -> None:
        """Write `data` (whole lines) and return once it is durable."""
        with self.lock:
            self.ensure_linked()
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
            self._written += 1
            ticket = self._written
        self._wait_durable(ticket)

    def _wait_durable(self, ticket: int) -> None:
        with self._synced_cv:
            while self._synced < ticket:
                if self._syncing:  # a leader is at work; its fsync or the next one covers us
                    self._synced_cv.wait()
                    continue
                # Lead: one fsync for every write complete so far (ours included). Read the ticket
                # before the fd: a write counted in `upto` went to this fd or to a removed file.
                self._syncing = True
                upto = self._written
                fd = self.fd
                self._synced_cv.release()  # others keep writing (and queueing) meanwhile
                try:
                    os.fsync(fd)
                finally:
                    self._synced_cv.acquire()
                    self._syncing = False
                    for old in self._retired:
                        os.close(old)
                    self._retired.clear()
                    self._synced_cv.notify_all()
                self.fsyncs += 1
                self._synced = max(self._synced, upto)

    @classmethod
    def for_lake(cls, lake: Lake) -> "_WalWriter":
        # Keyed by pid too: a forked child must not append to its parent's file.
        key = (str(lake.root), os.getpid())
        with cls._registry_lock:
            if key not in cls._by_key:
                cls._by_key[key] = cls(lake)
            return cls._by_key[key]


def _segment_type(rel_path: str) -> str:
    """`events/segments/event_type=<t>/<stem>.parquet` -> <t>."""
    return Path(rel_path).parent.name.removeprefix("event_type=")


class EventLog:
    def __init__(self, lake: Lake | None = None):
        self.lake = (lake or Lake.default()).ensure()
        self.store = lake_store(self.lake)
        self.blobs = BlobStore(self.lake, self.store)
        # One commit protocol for every store: numbered manifests (an older lake's range-named ones read too).
        self.chain = NumberedChain.for_lake(self.lake, self.store)
        self._sealer = NumberedSealer(self, self.chain)
        self._tail_offsets: dict[str, int] | None = None  # None: tail() has not caught up yet
        self._tail_seq = 0  # numbered: the newest manifest tail() has read
        self._read_seq = 0  # numbered: the newest manifest the last _manifests() call returned
        self._ensure_schema_segments()

    def reader(self) -> "EventLog":
        """Another log object on the same lake with its own tail cursor."""
        return EventLog(self.lake)

    @property
    def wal_path(self) -> Path:
        return _WalWriter.for_lake(self.lake).path

    # ---- locks -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """An exclusive lock shared by every process using this lake, held for the block.

        `name` is a slash-separated path of [A-Za-z0-9_-] parts, e.g. "llm_call/<request_key>"."""
        if not _LOCK_NAME.fullmatch(name):
            raise ValueError(f"bad lock name {name!r}")
        with file_lock(self.lake.locks_dir / f"{name}.lock"):
            yield

    def request_lock(self, request_key: str, event_type: str = "llm_call") -> contextlib.AbstractContextManager[None]:
        """Held while checking for and making one paid request (a model call; a search with
        "retrieval_call"), so two processes or machines never pay twice (warehouse/claims.py)."""
        chain = self.chain

        def answered() -> bool:
            return chain.is_answered(event_type, request_key)

        return request_claim(self.store, self.lake.locks_dir, answered, self.seal_own, request_key, event_type)

    # ---- write -------------------------------------------------------------------------------

    def append(self, event: Event) -> Event:
        self.append_many([event])
        return event

    def append_many(self, events: list[Event]) -> None:
        """Append and fsync; when this returns the events survive a crash."""
        if not events:
            return
        # Group commit (see _WalWriter): threads appending at once share one fsync.
        _WalWriter.for_lake(self.lake).append(b"".join(to_json_line(e) for e in events))

    def close(self) -> None:
        """Nothing to release per EventLog: the process's WAL writer stays open for its lifetime."""

    # ---- read --------------------------------------------------------------------------------
    def wal_files(self) -> list[Path]:
        return sorted(self.lake.wal_dir.glob("*.jsonl"))

    @staticmethod
    def _complete_lines(path: Path, start: int, end: int | None = None) -> tuple[bytes, int]:
        """Bytes from `start` up to the last newline (a torn final line from a crash is skipped)."""
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read() if end is None else fh.read(end - start)
        cut = data.rfind(b"\n") + 1
        return data[:cut], start + cut

    def iter_events(self, event_type: str | None = None) -> Iterator[Event]:
        """Every event in the log, each exactly once: sealed ones first (in seal order), then the
        ones not sealed yet. Callers that need time order sort by event_id (a ULID)."""
        types = None if event_type is None else (event_type,)
        yield from self._read(types, offsets={})

    def catch_up(self, event_types: Iterable[str] | None = None) -> list[Event]:
        """Every event so far (as `iter_events`), and `tail()` continues from there."""
        types = None if event_types is None else tuple(event_types)
        offsets: dict[str, int] = {}
        events = list(self._read(types, offsets))
        self._tail_offsets = offsets
        self._tail_seq = self._read_seq
        return events

    def tail(self, event_types: Iterable[str] | None = None) -> list[Event]:
        """Events appended by any process since this object's previous `tail()`/`catch_up()` (the
        first call catches up on the whole log). Ask for the same types on every call."""
        if self._tail_offsets is None:
            return self.catch_up(event_types)
        types = None if event_types is None else tuple(event_types)
        out: list[Event] = []
        for wal in self.wal_files():
            start = self._tail_offsets.get(wal.name, 0)
            data, end = self._complete_lines(wal, start)
            if data:
                out.extend(self._parse(data, wal.name, [], types))
                self._tail_offsets[wal.name] = end
        if self.store.shared:
            # Other machines' events arrive by commit. Listed after reading our own: a file that appears in
            # between is read from 0 by the next tail().
            local = {w.name for w in self.wal_files()}
            for m in self.chain.refresh():
                if m.seq <= self._tail_seq:
                    continue
                self._tail_seq = m.seq
                # This machine's ranges were read from its write-ahead files, so only the other machines'.
                if m.body.get("wal") and m.body["wal"] not in local:
                    out.extend(self._sealed_range(m.body, types))
        return out

    def count(self, event_type: str) -> int:
        """How many events of a type the log holds, without decoding them."""
        total = 0
        sealed_end: dict[str, int] = {}
        for m in self._manifests():
            total += sum(seg["rows"] for seg in m["segments"] if _segment_type(seg["path"]) == event_type)
            if m.get("wal"):
                sealed_end[m["wal"]] = max(sealed_end.get(m["wal"], 0), m["end"])
        prefix = f'{{"event_type":"{event_type}",'.encode()
        for wal in self.wal_files():
            data, _ = self._complete_lines(wal, sealed_end.get(wal.name, 0))
            # Each line starts a new event, so "\n" + prefix finds every one but the first.
            total += (b"\n" + data).count(b"\n" + prefix)
        return total

    def _read(self, types: tuple[str, ...] | None, offsets: dict[str, int]) -> Iterator[Event]:
        """Sealed ranges (from their segments) of every WAL, then each WAL after its sealed end;
        `offsets` receives where each WAL was read up to."""
        ranges: dict[str, list[dict]] = {}
        for m in self._manifests():
            if m.get("wal"):
                ranges.setdefault(m["wal"], []).append(m)
        seen: set[str] = set()
        for name in sorted(ranges):
            for m in sorted(ranges[name], key=lambda m: m["start"]):
                for ev in self._sealed_range(m, types):
                    if ev.event_id not in seen:
                        seen.add(ev.event_id)
                        yield ev
                offsets[name] = max(offsets.get(name, 0), m["end"])
        for wal in self.wal_files():
            data, end = self._complete_lines(wal, offsets.get(wal.name, 0))
            offsets[wal.name] = end
            for ev in self._parse(data, wal.name, [], types):
                if ev.event_id not in seen:
                    seen.add(ev.event_id)
                    yield ev

    def _sealed_range(self, manifest: dict, types: tuple[str, ...] | None) -> list[Event]:
        segs = [s for s in manifest["segments"] if types is None or _segment_type(s["path"]) in types]
        try:
            events = [ev for s in segs for ev in self._read_segment(s["path"])]
        except FileNotFoundError:
            # A lost segment: its WAL range is the other copy (`verify` reports the loss).
            wal = self.lake.wal_dir / manifest["wal"]
            if not wal.exists():
                raise
            data, _ = self._complete_lines(wal, manifest["start"], manifest["end"])
            return self._parse(data, wal.name, [], types)
        if len(segs) > 1:  # one range, several types: restore (roughly) the write order
            events.sort(key=lambda ev: ev.occurred_at)
        return events

    def _read_segment(self, rel_path: str) -> list[Event]:
        cls = EVENT_TYPES[_segment_type(rel_path)]
        path = self.chain.segment_file(rel_path)
        return [cls.from_record(row) for row in pq.read_table(path).to_pylist()]

    @staticmethod
    def _parse(data: bytes, where: str, bad: list[str], types: tuple[str, ...] | None = None) -> list[Event]:
        # to_json_line writes the type first, so other types are skipped without parsing their
        # JSON: asking for 30 papers must not decode a million llm_call lines.
        prefixes = tuple(f'{{"event_type":"{t}",'.encode() for t in types) if types is not None else (b"",)
        events = []
        for i, line in enumerate(data.splitlines()):
            if not line.strip() or not line.startswith(prefixes):
                continue
            try:
                events.append(parse_line(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                bad.append(f"{where} line {i + 1}: {type(exc).__name__}: {exc}")
        return events

    # ---- seal --------------------------------------------------------------------------------
    def _manifests(self) -> list[dict]:
        ms = self.chain.refresh()
        self._read_seq = ms[-1].seq if ms else 0
        return self.chain.bodies()

    def committed_segments(self) -> dict[str, list[tuple[str, int]]]:
        """Each event type's committed segments as (key, rows), in commit order. Committed segments never
        change, so this list grows exactly when events of the type were sealed: what a build compares."""
        out: dict[str, list[tuple[str, int]]] = {}
        for m in self._manifests():
            for seg in m.get("segments", []):
                out.setdefault(_segment_type(seg["path"]), []).append((seg["path"], int(seg.get("rows", 0))))
        return out

    def head(self) -> Link | None:
        """The newest committed manifest (seq, SHA-256): a witness of everything sealed so far."""
        head = self.chain.refresh()[-1:]
        return head[0].link if head else None

    def sealed_offsets(self) -> dict[str, int]:
        return self._sealed_offsets(self._manifests())

    @staticmethod
    def _sealed_offsets(manifests: list[dict]) -> dict[str, int]:
        offsets: dict[str, int] = {}
        for m in manifests:
            if m.get("wal"):
                offsets[m["wal"]] = max(offsets.get(m["wal"], 0), m["end"])
        return offsets

    def seal(self) -> SealReport:
        """Copy new WAL lines into Parquet segments. Safe to run from many processes at once."""
        report = SealReport()
        with file_lock(self.lake.seal_lock):  # spares local races; the conditional put decides
            self._sealer.seal(report)
        return report

    def seal_own(self) -> None:
        """Seal until this process's write-ahead file, as of now, is committed (a request claim's release)."""
        wal = self.wal_path
        if self.chain.sealed_end(wal.name) < wal.stat().st_size:
            self.seal()

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
        at least one file (DuckDB errors on an empty glob) and carries the full column set.

        Their manifests are chained like any other, so a schema segment is checked like every committed file."""
        if (self.chain.head is not None or self.chain.legacy) and not self._sealer.missing_schemas():
            return  # the usual case: this process already saw them all (no lock, no request)
        with file_lock(self.lake.seal_lock):  # spares local races; the conditional put decides
            self.chain.refresh()
            if self.chain.head is None and self.chain.legacy and not self._sealer.missing_schemas():
                return  # a lake written before the chain: its first seal starts it
            self._sealer.commit_schema_segments()
