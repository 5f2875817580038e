"""Content-addressed blob store over the lake's Store: a payload's name is its SHA-256
(`blobs/<sha[:2]>/<sha256>`), so it is written once and every read can re-check it.

`put` returns only once the blob is stored (or was already there), and raises otherwise: the gateway
writes a payload's blob before appending the event that names it, so no event naming a missing blob
reaches the write-ahead file. On a store other than this machine's disk, reads go through a local cache
(`Lake.remote_cache_dir`): a blob never changes, so the cache is never invalidated.
"""

import contextlib
import hashlib
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from peerlake.warehouse.fsutil import atomic_write
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.stores import ObjectMissing, Store
from peerlake.warehouse.stores.local import LocalStore

BLOBS = "blobs/"
SMALL_BLOB = 256 * 1024  # up to this size a shared store gets a conditional put without a look-up first


class BlobCorrupted(Exception):
    pass


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_SHA256 = re.compile(r"[0-9a-f]{64}")


def blob_name(sha: object) -> str:
    """`sha` if it can name a blob (64 lowercase hex); else BlobCorrupted. A name comes from an event,
    which may be forged: `/etc/passwd` or `../x` must never become a path."""
    if isinstance(sha, str) and _SHA256.fullmatch(sha):
        return sha
    raise BlobCorrupted(f"{str(sha)[:80]!r} is not a blob name (64 lowercase hex characters)")


def is_blob_name(sha: object) -> bool:
    return isinstance(sha, str) and _SHA256.fullmatch(sha) is not None


def blob_key(sha: str) -> str:
    return f"{BLOBS}{sha[:2]}/{sha}"


def lake_store(lake: Lake) -> Store:
    """The Store holding a lake's shared objects: its URL's, else this machine's lake root."""
    if lake.url:
        from peerlake.warehouse.stores import open_store

        return open_store(lake.url)
    return LocalStore(lake.root)


def blob_store(lake: Lake) -> "BlobStore":
    """The lake's blob store: for code that needs blobs without an EventLog."""
    return BlobStore(lake)


class BlobStore:
    # Blobs this process stored or saw stored, per shared store: a blob is never deleted, so no second look-up.
    _known: ClassVar[dict[str, set[str]]] = {}
    _lock = threading.Lock()

    def __init__(self, lake: Lake, store: Store | None = None):
        self.lake = lake
        self.store = store if store is not None else lake_store(lake)
        # Where the store's objects are files here, the file is the copy; elsewhere a local cache keeps one.
        self.cache_dir = self.store.path(BLOBS) if self.store.local_files else lake.remote_cache_dir / "blobs"
        with self._lock:
            self._stored = self._known.setdefault(self.store.url, set()) if not self.store.local_files else None

    def path(self, sha: str) -> Path:
        """This machine's copy of the blob (downloaded on first use from a remote store; may not exist if
        the blob does not)."""
        sha = blob_name(sha)
        p = self.cache_dir / sha[:2] / sha
        if not self.store.local_files and not p.exists():
            with contextlib.suppress(ObjectMissing, BlobCorrupted):  # the caller sees a missing file, as locally
                self.get(sha)
        return p

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        key = blob_key(sha)
        if self.store.local_files:
            if not self.store.exists(key):  # same name means same bytes: never rewrite
                self.store.put_if_absent(key, data)
            return sha
        with self._lock:
            if sha in self._stored:
                return sha
        # A small blob is sent with a conditional put (one request); a large one is looked up first, so an
        # existing PDF is not sent again.
        if len(data) <= SMALL_BLOB:
            self.store.put_if_absent(key, data)
        elif not self.store.exists(key):
            self.store.put(key, data)
        p = self.cache_dir / sha[:2] / sha
        if not p.exists():
            atomic_write(p, data)
        with self._lock:
            self._stored.add(sha)
        return sha

    def put_text(self, text: str) -> str:
        return self.put(text.encode("utf-8"))

    def get(self, sha: str) -> bytes:
        sha = blob_name(sha)
        p = self.cache_dir / sha[:2] / sha
        if not self.store.local_files and p.exists():
            data = p.read_bytes()
            if sha256_hex(data) == sha:
                return data
        # On disk the file is read as it always was (a missing blob is the OSError callers record).
        data = p.read_bytes() if self.store.local_files else self.store.get(blob_key(sha))
        if sha256_hex(data) != sha:
            raise BlobCorrupted(f"blob {sha} at {self.store.uri(blob_key(sha))} does not match its hash")
        if not self.store.local_files:
            atomic_write(p, data)
        return data

    def get_text(self, sha: str) -> str:
        return self.get(sha).decode("utf-8")

    def exists(self, sha: str) -> bool:
        if not is_blob_name(sha):
            return False
        if not self.store.local_files:
            with self._lock:
                if sha in self._stored:
                    return True
        return self.store.exists(blob_key(sha))

    def iter_all(self) -> Iterator[Path]:
        """Every stored blob, as this machine's copy (downloaded from a remote store). On disk every file
        under blobs/<xx>/ is listed, whatever its name, so `verify` names one that is not a blob."""
        for info in self.store.list(BLOBS):
            parts = info.key.split("/")
            if len(parts) != 3 or len(parts[1]) != 2:
                continue
            if self.store.local_files:
                yield self.store.path(info.key)
            elif len(parts[2]) == 64:
                yield self.path(parts[2])
