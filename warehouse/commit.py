"""The numbered-manifest commit protocol over any Store (object storage, a memory store, a shared folder):
manifests `events/manifests/<seq:012d>.json`, one hash chain.

A manifest is created with a conditional put (create-if-absent) at seq = head + 1 and carries
`prev_sha256`, the SHA-256 of the manifest at seq - 1: of two sealers racing for one seq exactly one
wins, and the loser re-reads and retries at the new head. Segments are uploaded first to
`events/staging/<sha256>.parquet` (content-addressed, never read by dbt) and copied server-side to their
committed key `events/segments/event_type=<t>/<wal-stem>-<start>-<end>.parquet` only once their manifest
exists ("roll forward": whoever sees a committed manifest whose segment key is missing completes the
copy). So `events/segments/` holds committed events only, each once.

`events/chain_head.json` names the newest manifest (seq, SHA-256), moved once per seal after its commits
(a plain put: two sealers may race, and a pointer left behind by the loser is a warning, never a loss);
each head this machine moves it to is also appended to this machine's witness log (warehouse/heads.py).
`verify` checks both: a deleted newest manifest leaves the pointer past the chain's end.

Committed manifests and segments never change, so this machine caches them by seq and by SHA-256
(`Lake.remote_cache_dir`); `verify` re-reads the remote bytes instead. A store `in_place` (this machine's
disk, no other writer) needs no cache: its files are read where they are.

Lakes written before every store used this protocol keep their manifests as they were written: named by
write-ahead range (`<wal stem>-<start>-<end>.json`, `000000-chain-genesis.json`, `000000-schema-….json`),
each carrying `seq` and `prev_sha256`, or, older still, neither. They are never rewritten; `upcast` reads
them into the chain at their seq, so the chain continues after them (the next numbered manifest's
`prev_sha256` is the SHA-256 of the newest range-named one), and a pre-chain manifest is read as committed
and pinned by the genesis.
"""

import hashlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

import pyarrow.parquet as pq

from peerlake.warehouse import heads
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.chain import Link
from peerlake.warehouse.events import EVENT_TYPES, Event
from peerlake.warehouse.fsutil import atomic_write, fsync_dir
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.stores import ObjectMissing, ObjectStoreError, Store


class _Log(Protocol):
    """What the sealer uses of warehouse.log.EventLog (which imports this module)."""

    def wal_files(self) -> list[Path]: ...
    def _complete_lines(self, path: Path, start: int, end: int | None = None) -> tuple[bytes, int]: ...
    def _parse(self, data: bytes, where: str, bad: list[str], types: tuple[str, ...] | None = None) -> list[Event]: ...
    def _write_parquet(self, path: Path, cls: type[Event], events: list[Event]) -> None: ...


log = logging.getLogger(__name__)
T, R = TypeVar("T"), TypeVar("R")

MANIFESTS = "events/manifests/"
STAGING = "events/staging/"
SEGMENTS = "events/segments/"
HEAD = "events/chain_head.json"
GENESIS_NAME = "000000-chain-genesis"  # the genesis manifest's "name" (the local chain's file stem)

MAX_RACES = 200  # a sealer that loses this many races in a row has a broken store, not bad luck

# Test-only hooks (None in normal use): after a seal's staging uploads, before its manifest (a kill -9 there,
# a race there); right after a manifest is created, before its segments are copied (a kill -9 there).
after_staging = None
after_manifest = None


def manifest_key(seq: int) -> str:
    return f"{MANIFESTS}{seq:012d}.json"


def seq_of_key(key: str) -> int | None:
    name = key.removeprefix(MANIFESTS)
    stem = name.removesuffix(".json")
    return int(stem) if name.endswith(".json") and stem.isdigit() and len(stem) == 12 else None


def staging_key(sha: str) -> str:
    return f"{STAGING}{sha}.parquet"


def segment_key(event_type: str, stem: str) -> str:
    return f"{SEGMENTS}event_type={event_type}/{stem}.parquet"


def segment_type(key: str) -> str:
    return Path(key).parent.name.removeprefix("event_type=")


def manifest_bytes(body: dict) -> bytes:
    return json.dumps(body, indent=1).encode()


@dataclass(frozen=True)
class NumberedManifest:
    seq: int  # 0: a manifest written before the chain existed (pinned by the genesis, in no seq)
    raw: bytes
    body: dict
    name: str | None = None  # the file stem of a range-named manifest (the older layout); None: numbered

    @property
    def sha256(self) -> str:
        return sha256_hex(self.raw)

    @property
    def stem(self) -> str:
        return self.name if self.name is not None else f"{self.seq:012d}"

    @property
    def link(self) -> Link:
        return Link(self.seq, self.sha256, self.stem)


def upcast(key: str, raw: bytes) -> NumberedManifest | None:
    """A manifest of the range-named layout, read as a link of the chain (seq 0 when it predates the chain);
    None when it is not a manifest at all (verify names it)."""
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("segments"), list):
        return None
    seq = body.get("seq")
    name = key.removeprefix(MANIFESTS).removesuffix(".json")
    return NumberedManifest(seq if isinstance(seq, int) and seq > 0 else 0, raw, body, name)


def read_head(store: Store) -> Link | None:
    """The bucket's head pointer; None when there is none; seq -1 when it is not one."""
    try:
        d = json.loads(store.get(HEAD))
        return Link(int(d["seq"]), str(d["sha256"]), str(d["manifest"]))
    except ObjectMissing:
        return None
    except (ValueError, KeyError, TypeError):
        return Link(-1, "", "unreadable")


def parallel(fn: Callable[[T], R], items: list[T]) -> list[R]:
    """`fn` over `items`, a few at a time: object stores answer in tens of milliseconds per request, and
    the first schema commit alone is ~80 requests."""
    if len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(8, len(items)), thread_name_prefix="store") as pool:
        return list(pool.map(fn, items))


class LostRace(Exception):
    """Another sealer committed the seq this one tried: re-read the chain and retry."""


class NumberedChain:
    """This process's view of one store's numbered manifests (shared by every log object on it)."""

    _by_key: ClassVar[dict[tuple[str, str, int], "NumberedChain"]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, lake: Lake, store: Store):
        self.lake, self.store = lake, store
        self.lock = threading.Lock()
        self.manifests: list[NumberedManifest] = []
        self.legacy: list[NumberedManifest] = []  # range-named manifests from before the chain (seq 0)
        self._listed = False  # the first refresh lists every manifest, the range-named layout's too
        self.segments: dict[str, dict] = {}  # committed key -> its manifest's segment record
        self.committed_staged: set[str] = set()  # staging keys that committed manifests name
        self._unique: dict[str, set[str]] = {t: set() for t, c in EVENT_TYPES.items() if c.duplicate_type}
        self._unique_upto = -1  # the seq up to which _unique holds the committed keys (0: the legacy ones)
        self._ok_keys: dict[str, set[str]] = {}  # committed segment -> request keys it answers (is_answered)
        self._pointer_seq: int | None = None  # the bucket's head pointer as this process last read or wrote it
        url_id = hashlib.sha256(store.url.encode()).hexdigest()[:16]
        self.manifest_cache = lake.remote_cache_dir / "manifests" / url_id
        self.segment_cache = lake.remote_cache_dir / "segments"

    @classmethod
    def for_lake(cls, lake: Lake, store: Store) -> "NumberedChain":
        key = (store.url, str(lake.root), os.getpid())
        with cls._registry_lock:
            if key not in cls._by_key:
                cls._by_key[key] = cls(lake, store)
            return cls._by_key[key]

    # ---- read --------------------------------------------------------------------------------
    @property
    def head(self) -> NumberedManifest | None:
        return self.manifests[-1] if self.manifests else None

    def refresh(self) -> list[NumberedManifest]:
        """Every committed manifest in seq order, after listing the ones committed since the last call."""
        with self.lock:
            if not self._listed:
                self._list_all()
                return list(self.manifests)
            after = manifest_key(self.head.seq) if self.manifests else None
            for info in self.store.list(MANIFESTS, start_after=after):
                seq = seq_of_key(info.key)
                if seq is None or (self.manifests and seq <= self.head.seq):
                    continue  # not a manifest name (verify names it)
                self._adopt(self._load(seq, info.key, info.etag))
            return list(self.manifests)

    def _list_all(self) -> None:
        """Every manifest in the store, numbered and range-named (upcast), adopted in seq order."""
        found: list[NumberedManifest] = []
        for info in self.store.list(MANIFESTS):
            seq = seq_of_key(info.key)
            if seq is not None:
                found.append(self._load(seq, info.key, info.etag))
            elif info.key.endswith(".json") and (m := upcast(info.key, self.store.get(info.key))) is not None:
                found.append(m)
        for m in sorted(found, key=lambda m: (m.seq, m.stem)):
            if m.seq == 0:
                self.legacy.append(m)
                self._adopt_segments(m)
            elif not self.manifests or m.seq > self.head.seq:  # (a second claim to a seq: verify names it)
                self._adopt(m)
        self._listed = True

    def bodies(self) -> list[dict]:
        """What every committed manifest commits: the pre-chain ones, then the chain in seq order."""
        return [m.body for m in (*self.legacy, *self.manifests)]

    def _load(self, seq: int, key: str, etag: str) -> NumberedManifest:
        cached = self.manifest_cache / f"{seq:012d}.json"
        if not self.store.in_place and cached.exists():
            raw = cached.read_bytes()
            # A single-part object's ETag is the MD5 of its bytes: a cache left from a bucket that was
            # since recreated at the same URL is not trusted.
            if len(etag) != 32 or hashlib.md5(raw, usedforsecurity=False).hexdigest() == etag:
                return NumberedManifest(seq, raw, json.loads(raw))
        raw = self.store.get(key)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict) or body.get("seq") != seq:
            raise ObjectStoreError(f"{self.store.uri(key)} is not a manifest of seq {seq}: the lake's commit log "
                                   "is damaged; run `peerlake verify`")
        m = NumberedManifest(seq, raw, body)
        self.roll_forward(m)
        if not self.store.in_place:
            atomic_write(cached, raw)  # cached only once its segments are in place
        return m

    def _adopt(self, m: NumberedManifest) -> None:
        self.manifests.append(m)
        self._adopt_segments(m)

    def _adopt_segments(self, m: NumberedManifest) -> None:
        for seg in m.body.get("segments", []):
            self.segments[seg["path"]] = seg
            if seg.get("staged"):
                self.committed_staged.add(seg["staged"])

    def drop_committed_staging(self, staged: list[str]) -> None:
        """After a lost race: delete what this sealer staged that another's commit already copied.

        Only zero-row schema segments have the same bytes in two sealers' attempts; the winner deletes
        its staged copy after copying, and ours may have landed after that delete. Every adopted manifest
        is rolled forward (refresh), so deleting a staged object a committed manifest names loses nothing."""
        parallel(self.drop_staged, sorted(set(staged) & self.committed_staged))

    def roll_forward(self, m: NumberedManifest) -> None:
        """Complete the copies of a committed manifest's staged segments (idempotent)."""
        copied = set()
        for seg in m.body.get("segments", []):
            staged = seg.get("staged")
            if not staged or self.store.exists(seg["path"]):
                continue
            try:
                self.store.copy(staged, seg["path"])
                copied.add(staged)
            except ObjectMissing:
                if not self.store.exists(seg["path"]):  # (else another process copied it meanwhile)
                    log.warning("segment %s of manifest seq %d is neither committed nor staged: run "
                                "`peerlake verify`", seg["path"], m.seq)
        # Deleted only after every copy: two segments with equal bytes (the zero-row schema segments of
        # llm_call and llm_call_duplicated) share one staged object.
        for staged in sorted(copied):
            self.drop_staged(staged)

    def drop_staged(self, staged: str) -> None:
        try:
            self.store.delete(staged)  # committed now; the staged copy would only double the storage
        except ObjectStoreError as exc:
            log.warning("could not delete %s after committing it: %s", staged, exc)

    def sealed_end(self, wal: str) -> int:
        return max((b["end"] for b in self.bodies() if b.get("wal") == wal), default=0)

    def drop_orphan_staging(self) -> None:
        """On a lake only this machine writes, under its seal lock: staged segments no manifest names are
        an interrupted seal's (every sealer here holds that lock from staging to copy), never committed."""
        for info in list(self.store.list(STAGING)):
            if info.key not in self.committed_staged:
                self.store.delete(info.key)

    def segment_file(self, key: str) -> Path:
        """A local copy of a committed segment (downloaded once, checked against its manifest's SHA-256)."""
        seg = self.segments.get(key)
        if seg is None:
            raise FileNotFoundError(f"{self.store.uri(key)} is in no committed manifest")
        if self.store.in_place:
            return self.store.path(key)
        path = self.segment_cache / f"{seg['sha256']}.parquet"
        if path.exists():
            return path
        try:
            data = self.store.get(key)
        except ObjectMissing:
            if not seg.get("staged"):
                raise
            data = self.store.get(seg["staged"])  # committed, not yet copied (a sealer in between)
        if sha256_hex(data) != seg["sha256"]:
            raise ObjectStoreError(f"{self.store.uri(key)} does not match the SHA-256 its manifest recorded: "
                                   "the segment was modified; run `peerlake verify`")
        atomic_write(path, data)
        return path

    def unique_keys(self) -> dict[str, set[str]]:
        """For each type with a uniqueness rule, the keys its committed segments hold (a copy)."""
        with self.lock:
            for m in (*self.legacy, *self.manifests):
                if m.seq <= self._unique_upto:
                    continue
                for seg in m.body.get("segments", []):
                    etype = segment_type(seg["path"])
                    if etype in self._unique and seg.get("rows"):
                        cls = EVENT_TYPES[etype]
                        rows = pq.read_table(self.segment_file(seg["path"]), columns=list(cls.unique_fields))
                        self._unique[etype].update(k for row in rows.to_pylist()
                                                   if (k := cls.unique_key_of(row)) is not None)
                self._unique_upto = m.seq
            return {t: set(keys) for t, keys in self._unique.items()}

    def is_answered(self, event_type: str, key: str) -> bool:
        """Whether a committed `event_type` event answers request `key`: a type with a uniqueness rule by
        that rule (llm_call), any other (retrieval_call) by an ok `status` for its `request_key`."""
        self.refresh()
        if event_type in self._unique:
            self.unique_keys()
            with self.lock:
                return key in self._unique[event_type]
        with self.lock:
            segs = [p for p, seg in self.segments.items()
                    if segment_type(p) == event_type and seg.get("rows") and p not in self._ok_keys]
        for path in segs:
            rows = pq.read_table(self.segment_file(path), columns=["request_key", "status"]).to_pylist()
            with self.lock:
                self._ok_keys[path] = {r["request_key"] for r in rows if r["status"] == "ok"}
        with self.lock:
            return any(key in keys for p, keys in self._ok_keys.items() if segment_type(p) == event_type)

    # ---- commit ------------------------------------------------------------------------------
    def publish_head(self) -> Link | None:
        """Move the bucket's head pointer up to the newest manifest this process knows, and record that head
        in this machine's witness log. Once per seal: one read of the pointer per process, one put per move."""
        head = self.head
        if head is None:
            return None
        if self._pointer_seq is None or self.store.in_place:  # (a file here: re-read, a lost pointer is rewritten)
            pointer = read_head(self.store)
            self._pointer_seq = pointer.seq if pointer else 0
        if head.seq > self._pointer_seq:
            self.store.put(HEAD, head.link.to_json())
            self._pointer_seq = head.seq
        heads.record(self.lake, head.link)
        return head.link

    def commit(self, body: dict, after: NumberedManifest | None) -> NumberedManifest:
        """Create the manifest after `after` (the head the caller based `body` on), or raise LostRace."""
        seq = 1 if after is None else after.seq + 1
        raw = manifest_bytes({**body, "seq": seq, "prev_sha256": None if after is None else after.sha256})
        if not self.store.put_if_absent(manifest_key(seq), raw):
            raise LostRace(seq)
        m = NumberedManifest(seq, raw, json.loads(raw))
        if after_manifest is not None:
            after_manifest()
        segs = body.get("segments", [])
        try:
            parallel(lambda seg: self.store.copy(seg["staged"], seg["path"]), segs)
        except ObjectMissing:
            self.roll_forward(m)  # a reader rolled it forward meanwhile and dropped the staged copy: check
        parallel(self.drop_staged, sorted({seg["staged"] for seg in segs}))
        if not self.store.in_place:
            atomic_write(self.manifest_cache / f"{seq:012d}.json", raw)
        with self.lock:
            if (self.head.seq if self.head else 0) == seq - 1:
                self._adopt(m)  # else the next refresh lists it with the ones before it
        return m


class NumberedSealer:
    """Seal on the numbered protocol: for each of this machine's write-ahead files, the complete lines after
    its committed end become one Parquet segment per event type, uploaded to `events/staging/<sha256>.parquet`;
    then the manifest for the range is created at seq = head + 1 with a conditional put. Losing that race to
    another sealer (another machine, or a process without our local lock) means re-reading the chain,
    recomputing the range and the uniqueness routing, and retrying; after the manifest exists the segments
    are copied to their committed keys. A crash before the manifest leaves a staged orphan that no manifest
    names (never copied, never read; `verify` warns); a crash after it is completed by the next seal or
    reader. The uniqueness rule (one ok llm_call per request_key) routes a later success to
    `llm_call_duplicated`, against every machine's committed keys."""

    def __init__(self, log: _Log, chain: NumberedChain):
        self.log, self.chain, self.store = log, chain, chain.store

    def seal(self, report: Any) -> None:
        """Commit this machine's new WAL lines (the caller holds the local seal lock, which only spares
        local races: the conditional put decides)."""
        self.chain.refresh()
        if self.chain.head is None:  # a lake written before the chain: its first seal starts it
            self.commit_schema_segments()
        if not self.store.shared:
            self.chain.drop_orphan_staging()
        for wal in self.log.wal_files():
            while self._seal_wal(wal, report):
                pass
        report.head = self.chain.publish_head()

    def _interrupted_end(self, wal: Path, start: int) -> int | None:
        """On a lake on this disk written by the range-named layout's seal: the end of the range a seal that
        crashed before its manifest left segments for (in place, named by range), so that range is committed
        as it was cut and its files are not left behind when lines were appended since."""
        if not self.store.in_place:
            return None
        prefix = f"{wal.stem}-{start:012d}-"
        ends = [int(p.stem[len(prefix):]) for p in self.store.path(SEGMENTS).glob(f"event_type=*/{prefix}*.parquet")
                if p.stem[len(prefix):].isdigit() and f"{SEGMENTS}{p.parent.name}/{p.name}" not in self.chain.segments]
        return min(ends, default=None)

    def _seal_wal(self, wal: Path, report: Any) -> bool:
        """Commit the next range of `wal`; True when lines are left after it (an interrupted range was cut)."""
        abandoned: set[str] = set()  # staged by an attempt that lost its race
        try:
            for attempt in range(MAX_RACES):
                # Optimistic first try on what this process already knows: if another sealer committed
                # since, our seq is taken and the conditional put fails, so a stale view commits nothing.
                if attempt or self.chain.head is None:
                    self.chain.refresh()
                head = self.chain.head
                start = self.chain.sealed_end(wal.name)
                data, end = self.log._complete_lines(wal, start)
                if not data:
                    return False
                if (stop := self._interrupted_end(wal, start)) is not None:
                    cut = self.log._complete_lines(wal, start, stop)
                    if cut[1] == stop:  # (else not whole lines of this WAL: an ordinary range)
                        data, end = cut
                    else:
                        stop = None
                bad: list[str] = []
                events = self.log._parse(data, wal.name, bad)
                stem = f"{wal.stem}-{start:012d}-{end:012d}"
                by_type, duplicates = route(events, self.chain.unique_keys())
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
                return stop is not None
        finally:
            # A lost attempt's segments hold this WAL's events (no other sealer can produce the same bytes:
            # the WAL is this machine's and we hold its seal lock), so nobody will commit them: drop them
            # rather than leave orphans (e.g. a range already sealed by another process of this machine).
            parallel(self.chain.drop_staged, sorted(abandoned))
        raise RuntimeError(f"sealing {wal.name}: lost {MAX_RACES} races for the next manifest in a row")

    def _stage(self, key: str, cls: type[Event], events: list[Event]) -> dict:
        """Write the segment, keep it in the local cache and upload it to staging under its SHA-256."""
        if self.store.in_place:  # written in place: the staging folder is this lake's
            tmp = self.store.path(STAGING) / f".staging-{os.getpid()}-{threading.get_ident()}.parquet"
            self.log._write_parquet(tmp, cls, events)
            sha = sha256_hex(tmp.read_bytes())
            os.replace(tmp, self.store.path(staging_key(sha)))
            fsync_dir(tmp.parent)  # the manifest will name it: it must outlive a crash before the copy
            return {"path": key, "staged": staging_key(sha), "sha256": sha, "rows": len(events)}
        tmp = self.chain.segment_cache / f".staging-{os.getpid()}-{threading.get_ident()}.parquet"
        self.log._write_parquet(tmp, cls, events)
        data = tmp.read_bytes()
        sha = sha256_hex(data)
        os.replace(tmp, self.chain.segment_cache / f"{sha}.parquet")
        self.store.put(staging_key(sha), data)
        return {"path": key, "staged": staging_key(sha), "sha256": sha, "rows": len(events)}

    def missing_schemas(self) -> list[tuple[str, type[Event]]]:
        have = {Path(p).stem for p in self.chain.segments}
        return [(etype, cls) for etype, cls in EVENT_TYPES.items()
                if f"000000-schema-{etype}-v{cls.schema_version}" not in have]

    def commit_schema_segments(self) -> None:
        """The genesis manifest and one zero-row segment per event type and schema version (as on a local
        lake), so every dbt glob matches a file with the full column set."""
        committed = False
        for _ in range(MAX_RACES):
            self.chain.refresh()
            head = self.chain.head
            try:
                if head is None:
                    # A lake written before the chain: the genesis pins its manifests' SHA-256s.
                    legacy = {m.stem: m.sha256 for m in self.chain.legacy}
                    self.chain.commit({"wal": None, "segments": [], "events": 0, "genesis": True,
                                       "name": GENESIS_NAME, "created_at": datetime.now(UTC).isoformat(),
                                       **({"legacy_manifests": legacy} if legacy else {})}, None)
                    committed = True
                    continue
                missing = self.missing_schemas()
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
        raise RuntimeError(f"{self.store.url}: lost {MAX_RACES} races for the next manifest in a row")


def route(events: list[Event], unique_keys: dict[str, set[str]]) -> tuple[dict[str, list[Event]], int]:
    """Events by the partition they are sealed to: a second success for a key goes to its duplicate type."""
    by_type: dict[str, list[Event]] = {}
    duplicates = 0
    for ev in events:
        etype = ev.event_type
        if etype in unique_keys and (key := ev.unique_key()) is not None:
            if key in unique_keys[etype]:
                # Already answered (sealed earlier or earlier in this batch): this one was paid for too, so
                # it is kept, but where replay and the marts do not count it.
                etype = ev.duplicate_type
                duplicates += 1
            else:
                unique_keys[etype].add(key)
        by_type.setdefault(etype, []).append(ev)
    return by_type, duplicates


def _sealer() -> dict:
    return {"sealer": {"host": socket.gethostname(), "pid": os.getpid()},
            "sealed_at": datetime.now(UTC).isoformat()}
