"""Content-addressed blobs on object storage (`blobs/<sha[:2]>/<sha256>`), with a local read cache.

Same interface as warehouse.blobs.BlobStore. `put` returns only once the object is stored remotely (or
was already there), and raises otherwise: the gateway writes a payload's blob before appending the event
that names it, so no event naming a missing blob reaches the write-ahead file, let alone a commit.
"""

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from warehouse.blobs import BlobCorrupted, BlobStore, blob_name, is_blob_name, sha256_hex
from warehouse.fsutil import atomic_write
from warehouse.lake import Lake
from warehouse.objectstore import ObjectMissing, ObjectStore

BLOBS = "blobs/"
SMALL_BLOB = 256 * 1024


def blob_key(sha: str) -> str:
    return f"{BLOBS}{sha[:2]}/{sha}"


def blob_store(lake: Lake) -> "BlobStore | RemoteBlobStore":
    """The lake's blob store, local or remote: for code that needs blobs without an EventLog."""
    return RemoteBlobStore(lake, ObjectStore(lake.url)) if lake.url else BlobStore(lake)


class RemoteBlobStore:
    # Blobs this process stored or saw stored, per lake URL: a blob is never deleted, so no second HEAD.
    _known: ClassVar[dict[str, set[str]]] = {}
    _lock = threading.Lock()

    def __init__(self, lake: Lake, store: ObjectStore):
        self.lake, self.store = lake, store
        self.cache_dir = lake.remote_cache_dir / "blobs"
        with self._lock:
            self._stored = self._known.setdefault(store.url, set())

    def path(self, sha: str) -> Path:
        """This machine's copy of the blob (downloaded on first use; may not exist if the blob does not)."""
        sha = blob_name(sha)
        p = self.cache_dir / sha[:2] / sha
        if not p.exists():
            with contextlib.suppress(ObjectMissing, BlobCorrupted):  # the caller sees a missing file, as locally
                self.get(sha)
        return p

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        with self._lock:
            if sha in self._stored:
                return sha
        # Same name means same bytes: a blob already there is never rewritten. A small one is sent with a
        # conditional put (one request); a large one is looked up first, so an existing PDF is not re-sent.
        if len(data) <= SMALL_BLOB:
            self.store.put_if_absent(blob_key(sha), data)
        elif not self.store.exists(blob_key(sha)):
            self.store.put(blob_key(sha), data)
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
        if p.exists():
            data = p.read_bytes()
            if sha256_hex(data) == sha:
                return data
        data = self.store.get(blob_key(sha))
        if sha256_hex(data) != sha:
            raise BlobCorrupted(f"blob {sha} at {self.store.uri(blob_key(sha))} does not match its hash")
        atomic_write(p, data)
        return data

    def get_text(self, sha: str) -> str:
        return self.get(sha).decode("utf-8")

    def exists(self, sha: str) -> bool:
        if not is_blob_name(sha):
            return False
        with self._lock:
            if sha in self._stored:
                return True
        return self.store.exists(blob_key(sha))

    def iter_all(self) -> Iterator[Path]:
        """Every remote blob, as this machine's (downloaded) copy."""
        for info in self.store.list(BLOBS):
            name = info.key.rsplit("/", 1)[-1]
            if len(name) == 64:
                yield self.path(name)
