"""The event log of a lake on object storage (`Lake.url` set): `EventLog(lake)` returns one of these.

Write path: unchanged. Each process appends to its write-ahead file on this machine's disk and fsyncs
before `append` returns (EventLog's own write path; object storage has no append).

Seal path (warehouse/remote_chain.py holds the commit protocol): for each local WAL, the complete lines
after its committed end become one Parquet segment per event type, uploaded to
`events/staging/<sha256>.parquet`; then the manifest for the range is created at seq = head + 1 with a
conditional put. Losing that race to another sealer (another machine, or a process without our local
lock) means re-reading the chain, recomputing the range and the uniqueness routing, and retrying; after
the manifest exists the segments are copied to their committed keys. A crash before the manifest leaves
a staged orphan that no manifest names (never copied, never read; `verify` warns); a crash after it is
completed by the next seal or reader. Each seal then moves the bucket's head pointer and records the head
in this machine's witness log (RemoteChain.publish_head). The uniqueness rule (one ok llm_call per request_key) routes a
later success to `llm_call_duplicated`, against every machine's committed keys.

Read path: every committed segment (downloaded once, cached by SHA-256) plus this machine's WAL lines
after their committed end. Other machines' events become visible when they seal: the request claims
(warehouse/claims.py) seal before releasing a key, so an answer is visible before anyone may ask again.
"""

import contextlib
import os
import socket
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq

from warehouse.blobs import sha256_hex
from warehouse.chain import Link
from warehouse.claims import request_claim
from warehouse.events import EVENT_TYPES, Event
from warehouse.fsutil import file_lock
from warehouse.lake import Lake
from warehouse.log import EventLog, SealReport
from warehouse.objectstore import ObjectStore
from warehouse.remote_blobs import RemoteBlobStore
from warehouse.remote_chain import GENESIS_NAME, LostRace, RemoteChain, parallel, segment_key, segment_type, staging_key

if TYPE_CHECKING:
    from warehouse.verify import VerifyReport

MAX_RACES = 200  # a sealer that loses this many races in a row has a broken store, not bad luck

# Test-only: called after a seal's staging uploads, before its manifest (a kill -9 there, a race there).
# None in normal use.
after_staging = None


class RemoteEventLog(EventLog):
    def __init__(self, lake: Lake | None = None):
        self.lake = (lake or Lake.default()).ensure()
        if not self.lake.url:
            raise ValueError("RemoteEventLog needs a lake with a url (PEERLAKE_LAKE_URL)")
        self.store = ObjectStore(self.lake.url)
        self.chain = RemoteChain.for_lake(self.lake, self.store)
        self.blobs = RemoteBlobStore(self.lake, self.store)
        self._tail_offsets: dict[str, int] | None = None
        self._tail_seq = 0  # the newest manifest tail() has read
        self._read_seq = 0  # the newest manifest the last _manifests() call returned
        self._ensure_schema_segments()

    def reader(self) -> "RemoteEventLog":
        return RemoteEventLog(self.lake)

    def request_lock(self, request_key: str) -> contextlib.AbstractContextManager[None]:
        """A claim on the request key, shared by every machine on the lake (warehouse/claims.py)."""
        return request_claim(self.store, self.chain, self.lake.locks_dir, self.seal_own, request_key)

    def verify_remote(self, extends: str | None = None) -> "VerifyReport":
        """`verify_lake` on this lake (warehouse/remote_verify.py)."""
        from warehouse.remote_verify import verify_remote

        return verify_remote(self, self.store, self.chain, extends)

    def head(self) -> Link | None:
        """The newest committed manifest in the bucket (seq, SHA-256)."""
        head = self.chain.refresh()[-1:]
        return head[0].link if head else None

    # ---- read --------------------------------------------------------------------------------
    def _manifests(self) -> list[dict]:
        ms = self.chain.refresh()
        self._read_seq = ms[-1].seq if ms else 0
        return [m.body for m in ms]

    def _read_segment(self, rel_path: str) -> list[Event]:
        cls = EVENT_TYPES[segment_type(rel_path)]
        return [cls.from_record(row) for row in pq.read_table(self.chain.segment_file(rel_path)).to_pylist()]

    def catch_up(self, event_types: Iterable[str] | None = None) -> list[Event]:
        events = super().catch_up(event_types)
        self._tail_seq = self._read_seq
        return events

    def tail(self, event_types: Iterable[str] | None = None) -> list[Event]:
        """As EventLog.tail, plus what other machines committed since: their events arrive by seal."""
        if self._tail_offsets is None:
            return self.catch_up(event_types)
        types = None if event_types is None else tuple(event_types)
        out = super().tail(event_types)  # this machine's write-ahead lines
        # Listed after reading them: a file that appears in between is read from 0 by the next tail().
        local = {w.name for w in self.wal_files()}
        for m in self.chain.refresh():
            if m.seq <= self._tail_seq:
                continue
            self._tail_seq = m.seq
            # This machine's ranges were read from its write-ahead files, so only the other machines'.
            if m.body.get("wal") and m.body["wal"] not in local:
                out.extend(self._sealed_range(m.body, types))
        return out

    def _sealed_unique_keys(self, manifests: list[dict]) -> dict[str, set[str]]:
        return self.chain.unique_keys()

    # ---- seal --------------------------------------------------------------------------------
    def seal(self) -> SealReport:
        """Commit this machine's new WAL lines to the remote lake. Safe with any number of sealers on any
        number of machines (the conditional put decides); the local flock only spares local races."""
        report = SealReport()
        with file_lock(self.lake.seal_lock):
            for wal in self.wal_files():
                self._seal_wal(wal, report)
            report.head = self.chain.publish_head()
        return report

    def seal_own(self) -> None:
        """Seal until this process's write-ahead file, as of now, is committed (a claim's release)."""
        wal = self.wal_path
        if self.chain.sealed_end(wal.name) < wal.stat().st_size:
            self.seal()

    def _seal_wal(self, wal: Path, report: SealReport) -> None:
        abandoned: set[str] = set()  # staged by an attempt that lost its race
        try:
            for attempt in range(MAX_RACES):
                # Optimistic first try on what this process already knows: if another sealer committed
                # since, our seq is taken and the conditional put fails, so a stale view commits nothing.
                if attempt or self.chain.head is None:
                    self.chain.refresh()
                head = self.chain.head
                start = self.chain.sealed_end(wal.name)
                data, end = self._complete_lines(wal, start)
                if not data:
                    return
                bad: list[str] = []
                events = self._parse(data, wal.name, bad)
                stem = f"{wal.stem}-{start:012d}-{end:012d}"
                by_type, duplicates = self._route(events, self.chain.unique_keys())
                segments = [self._stage(segment_key(etype, stem), EVENT_TYPES[etype], evs)
                            for etype, evs in sorted(by_type.items())]
                if after_staging is not None:
                    after_staging()
                body = {"wal": wal.name, "start": start, "end": end, "wal_sha256": sha256_hex(data),
                        "segments": segments, "events": len(events), **_sealer()}
                try:
                    self.chain.commit(body, head)
                except LostRace:
                    abandoned |= {seg["staged"] for seg in segments}
                    continue
                abandoned -= {seg["staged"] for seg in segments}
                report.segments_written += len(segments)
                report.events_sealed += len(events)
                report.duplicates += duplicates
                report.bad_lines += bad
                return
        finally:
            # A lost attempt's segments hold this WAL's events (no other sealer can produce the same bytes:
            # the WAL is this machine's and we hold its seal lock), so nobody will commit them: drop them
            # rather than leave orphans (e.g. a range already sealed by another process of this machine).
            parallel(self.chain.drop_staged, sorted(abandoned))
        raise RuntimeError(f"sealing {wal.name}: lost {MAX_RACES} races for the next manifest in a row")

    @staticmethod
    def _route(events: list[Event], unique_keys: dict[str, set[str]]) -> tuple[dict[str, list[Event]], int]:
        """Events by the partition they are sealed to: a second success for a key goes to its duplicate type."""
        by_type: dict[str, list[Event]] = {}
        duplicates = 0
        for ev in events:
            etype = ev.event_type
            if etype in unique_keys and (key := ev.unique_key()) is not None:
                if key in unique_keys[etype]:
                    etype = ev.duplicate_type
                    duplicates += 1
                else:
                    unique_keys[etype].add(key)
            by_type.setdefault(etype, []).append(ev)
        return by_type, duplicates

    def _stage(self, key: str, cls: type[Event], events: list[Event]) -> dict:
        """Write the segment, keep it in the local cache and upload it to staging under its SHA-256."""
        tmp = self.chain.segment_cache / f".staging-{os.getpid()}-{threading.get_ident()}.parquet"
        self._write_parquet(tmp, cls, events)
        data = tmp.read_bytes()
        sha = sha256_hex(data)
        os.replace(tmp, self.chain.segment_cache / f"{sha}.parquet")
        self.store.put(staging_key(sha), data)
        return {"path": key, "staged": staging_key(sha), "sha256": sha, "rows": len(events)}

    def _ensure_schema_segments(self) -> None:
        """The genesis manifest and one zero-row segment per event type and schema version (as locally),
        so every dbt glob matches a file with the full column set."""
        if self.chain.head is not None and not self._missing_schemas():
            return  # the usual case: this process already saw them all (no lock, no request)
        with file_lock(self.lake.seal_lock):  # spares local races; across machines the conditional put decides
            self._commit_schema_segments()

    def _missing_schemas(self) -> list[tuple[str, type[Event]]]:
        have = {Path(p).stem for p in self.chain.segments}
        return [(etype, cls) for etype, cls in EVENT_TYPES.items()
                if f"000000-schema-{etype}-v{cls.schema_version}" not in have]

    def _commit_schema_segments(self) -> None:
        committed = False
        for _ in range(MAX_RACES):
            self.chain.refresh()
            head = self.chain.head
            try:
                if head is None:
                    self.chain.commit({"wal": None, "segments": [], "events": 0, "genesis": True,
                                       "name": GENESIS_NAME, "created_at": datetime.now(UTC).isoformat()}, None)
                    committed = True
                    continue
                missing = self._missing_schemas()
                if not missing:
                    if committed:  # the pointer follows this process's commits (a reader's start-up moves nothing)
                        self.chain.publish_head()
                    return
                segments = parallel(lambda tc: self._stage(
                    segment_key(tc[0], f"000000-schema-{tc[0]}-v{tc[1].schema_version}"), tc[1], []), missing)
                try:
                    self.chain.commit({"wal": None, "schema": True, "segments": segments, "events": 0,
                                       **_sealer()}, head)
                    committed = True
                except LostRace:
                    self.chain.refresh()
                    self.chain.drop_committed_staging([s["staged"] for s in segments])
                    raise
            except LostRace:
                continue
        raise RuntimeError(f"{self.lake.url}: lost {MAX_RACES} races for the next manifest in a row")


EventLog.remote_class = RemoteEventLog


def _sealer() -> dict:
    return {"sealer": {"host": socket.gethostname(), "pid": os.getpid()},
            "sealed_at": datetime.now(UTC).isoformat()}
