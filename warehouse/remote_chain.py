"""The commit log of a lake on object storage: manifests `events/manifests/<seq:012d>.json`, one hash chain.

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
(`Lake.remote_cache_dir`); `verify` re-reads the remote bytes instead.
"""

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

import pyarrow.parquet as pq

from warehouse import heads
from warehouse.blobs import sha256_hex
from warehouse.chain import Link
from warehouse.events import EVENT_TYPES
from warehouse.fsutil import atomic_write
from warehouse.lake import Lake
from warehouse.objectstore import ObjectMissing, ObjectStore, ObjectStoreError

log = logging.getLogger(__name__)
T, R = TypeVar("T"), TypeVar("R")

MANIFESTS = "events/manifests/"
STAGING = "events/staging/"
SEGMENTS = "events/segments/"
HEAD = "events/chain_head.json"
GENESIS_NAME = "000000-chain-genesis"  # the genesis manifest's "name" (the local chain's file stem)

# Test-only: called right after a manifest is created, before its segments are copied (a kill -9 there).
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
class RemoteManifest:
    seq: int
    raw: bytes
    body: dict

    @property
    def sha256(self) -> str:
        return sha256_hex(self.raw)

    @property
    def link(self) -> Link:
        return Link(self.seq, self.sha256, f"{self.seq:012d}")


def read_head(store: ObjectStore) -> Link | None:
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
    with ThreadPoolExecutor(max_workers=min(8, len(items)), thread_name_prefix="objectstore") as pool:
        return list(pool.map(fn, items))


class LostRace(Exception):
    """Another sealer committed the seq this one tried: re-read the chain and retry."""


class RemoteChain:
    """This process's view of one remote lake's manifests (shared by every log object on it)."""

    _by_key: ClassVar[dict[tuple[str, str, int], "RemoteChain"]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, lake: Lake, store: ObjectStore):
        self.lake, self.store = lake, store
        self.lock = threading.Lock()
        self.manifests: list[RemoteManifest] = []
        self.segments: dict[str, dict] = {}  # committed key -> its manifest's segment record
        self.committed_staged: set[str] = set()  # staging keys that committed manifests name
        self._unique: dict[str, set[str]] = {t: set() for t, c in EVENT_TYPES.items() if c.duplicate_type}
        self._unique_upto = 0  # the seq up to which _unique holds the committed keys
        self._pointer_seq: int | None = None  # the bucket's head pointer as this process last read or wrote it
        url_id = hashlib.sha256(store.url.encode()).hexdigest()[:16]
        self.manifest_cache = lake.remote_cache_dir / "manifests" / url_id
        self.segment_cache = lake.remote_cache_dir / "segments"

    @classmethod
    def for_lake(cls, lake: Lake, store: ObjectStore) -> "RemoteChain":
        key = (store.url, str(lake.root), os.getpid())
        with cls._registry_lock:
            if key not in cls._by_key:
                cls._by_key[key] = cls(lake, store)
            return cls._by_key[key]

    # ---- read --------------------------------------------------------------------------------
    @property
    def head(self) -> RemoteManifest | None:
        return self.manifests[-1] if self.manifests else None

    def refresh(self) -> list[RemoteManifest]:
        """Every committed manifest in seq order, after listing the ones committed since the last call."""
        with self.lock:
            after = manifest_key(self.head.seq) if self.manifests else None
            for info in self.store.list(MANIFESTS, start_after=after):
                seq = seq_of_key(info.key)
                if seq is None or (self.manifests and seq <= self.head.seq):
                    continue  # not a manifest name (verify names it)
                self._adopt(self._load(seq, info.key, info.etag))
            return list(self.manifests)

    def _load(self, seq: int, key: str, etag: str) -> RemoteManifest:
        cached = self.manifest_cache / f"{seq:012d}.json"
        if cached.exists():
            raw = cached.read_bytes()
            # A single-part object's ETag is the MD5 of its bytes: a cache left from a bucket that was
            # since recreated at the same URL is not trusted.
            if len(etag) != 32 or hashlib.md5(raw, usedforsecurity=False).hexdigest() == etag:
                return RemoteManifest(seq, raw, json.loads(raw))
        raw = self.store.get(key)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict) or body.get("seq") != seq:
            raise ObjectStoreError(f"{self.store.uri(key)} is not a manifest of seq {seq}: the lake's commit log "
                                   "is damaged; run `peerlake verify`")
        m = RemoteManifest(seq, raw, body)
        self.roll_forward(m)
        atomic_write(cached, raw)  # cached only once its segments are in place
        return m

    def _adopt(self, m: RemoteManifest) -> None:
        self.manifests.append(m)
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

    def roll_forward(self, m: RemoteManifest) -> None:
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
        return max((m.body["end"] for m in self.manifests if m.body.get("wal") == wal), default=0)

    def segment_file(self, key: str) -> Path:
        """A local copy of a committed segment (downloaded once, checked against its manifest's SHA-256)."""
        seg = self.segments.get(key)
        if seg is None:
            raise FileNotFoundError(f"{self.store.uri(key)} is in no committed manifest")
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
            for m in self.manifests:
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
        self.refresh()
        self.unique_keys()
        with self.lock:
            return key in self._unique.get(event_type, ())

    # ---- commit ------------------------------------------------------------------------------
    def publish_head(self) -> Link | None:
        """Move the bucket's head pointer up to the newest manifest this process knows, and record that head
        in this machine's witness log. Once per seal: one read of the pointer per process, one put per move."""
        head = self.head
        if head is None:
            return None
        if self._pointer_seq is None:
            pointer = read_head(self.store)
            self._pointer_seq = pointer.seq if pointer else 0
        if head.seq > self._pointer_seq:
            self.store.put(HEAD, head.link.to_json())
            self._pointer_seq = head.seq
        heads.record(self.lake, head.link)
        return head.link

    def commit(self, body: dict, after: RemoteManifest | None) -> RemoteManifest:
        """Create the manifest after `after` (the head the caller based `body` on), or raise LostRace."""
        seq = 1 if after is None else after.seq + 1
        raw = manifest_bytes({**body, "seq": seq, "prev_sha256": None if after is None else after.sha256})
        if not self.store.put_if_absent(manifest_key(seq), raw):
            raise LostRace(seq)
        m = RemoteManifest(seq, raw, json.loads(raw))
        if after_manifest is not None:
            after_manifest()
        segs = body.get("segments", [])
        try:
            parallel(lambda seg: self.store.copy(seg["staged"], seg["path"]), segs)
        except ObjectMissing:
            self.roll_forward(m)  # a reader rolled it forward meanwhile and dropped the staged copy: check
        parallel(self.drop_staged, sorted({seg["staged"] for seg in segs}))
        atomic_write(self.manifest_cache / f"{seq:012d}.json", raw)
        with self.lock:
            if (self.head.seq if self.head else 0) == seq - 1:
                self._adopt(m)  # else the next refresh lists it with the ones before it
        return m
