"""Where a lake's shared objects live: one small `Store` interface with a local-disk, an S3-API and an
in-memory adapter. Everything above it (the chain, the blobs, the request claims, verify) speaks only
these verbs, so a lake moves between stores without its commit protocol changing.

The one primitive the protocol rests on is `put_if_absent`: of several writers creating one key, exactly
one succeeds (O_EXCL-style link on disk, `If-None-Match: *` on S3, a dict under a lock in memory).
Keys are `/`-separated paths relative to the store's root.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable


class ObjectStoreError(RuntimeError):
    """The store refused or could not be reached; the message says what to fix."""


class ObjectMissing(ObjectStoreError, FileNotFoundError):
    """The key does not exist (a FileNotFoundError, so readers treat it like a missing local file)."""


class KeyOutsideStore(ObjectMissing):
    """A key that would leave the store's folder (`../…`, an absolute path): refused on every verb. It reads
    as absent, so a forged path in a manifest is reported by verify, never followed or written to."""


@dataclass(frozen=True)
class ObjectInfo:
    key: str  # relative to the store's root
    size: int
    etag: str  # S3: the MD5 of a single-part object; "" where the store keeps none


@runtime_checkable
class Store(Protocol):
    """The objects under one lake location."""

    url: str  # identifies the store (s3://…, file://…, memory://…): caches and witness lines are keyed by it
    shared: bool  # other machines write here too: request claims must be taken in the store, not by flock
    # Capabilities: callers ask these, never the adapter's type, so a new kind of store edits no caller.
    local_files: bool  # keys are files on this machine (`path`): read where they are, so blobs need no cached copy
    in_place: bool  # local files no other machine writes: the chain stages, reads and cleans up there, uncached

    def uri(self, key: str) -> str:
        """Where `key` is, for messages."""

    def path(self, key: str) -> Path:
        """The file holding `key`, for DuckDB, pyarrow, fsync and rename; ObjectStoreError unless `local_files`."""

    def get(self, key: str) -> bytes:
        """The bytes of `key`; ObjectMissing if there is none."""

    def put(self, key: str, data: bytes) -> None:
        """Create or replace `key`, all or nothing, durable once this returns."""

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create `key` unless it exists: True if this call created it."""

    def head(self, key: str) -> ObjectInfo | None:
        """Size and etag of `key`, None when it does not exist."""

    def exists(self, key: str) -> bool:
        """Whether `key` exists."""

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[ObjectInfo]:
        """Every object whose key starts with `prefix`, in key order (after `start_after` if given)."""

    def copy(self, src: str, dst: str) -> None:
        """`dst` becomes a copy of `src`; ObjectMissing if `src` does not exist."""

    def delete(self, key: str) -> None:
        """Remove `key` (nothing if it does not exist)."""


def open_store(url: str) -> Store:
    """The store an URL names: s3://bucket/prefix, file:///path or memory://name."""
    if url.startswith("s3://"):
        from peerlake.warehouse.stores.s3 import S3Store  # boto3 only for a lake on object storage

        return S3Store(url)
    if url.startswith("memory://"):
        from peerlake.warehouse.stores.memory import MemoryStore

        return MemoryStore.named(url)
    from peerlake.warehouse.stores.local import LocalStore

    return LocalStore(Path(url.removeprefix("file://")), shared=True)


__all__ = ["KeyOutsideStore", "ObjectInfo", "ObjectMissing", "ObjectStoreError", "Store", "open_store"]
