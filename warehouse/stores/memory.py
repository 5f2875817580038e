"""The Store in memory, for tests: one dict per name, shared by every MemoryStore of that name in a process,
so two "machines" in one test see one store."""

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from ulid import ULID

from peerlake.warehouse.stores import ObjectInfo, ObjectMissing, ObjectStoreError


class MemoryStore:
    shared = True  # stands for a store other machines write too, so the tests exercise the claims
    local_files = in_place = False  # bytes in a dict: read through the cache, as a remote store's

    _named: ClassVar[dict[str, dict[str, bytes]]] = {}
    _lock = threading.Lock()

    def __init__(self, url: str | None = None):
        self.url = url or f"memory://{ULID()}"
        with self._lock:
            self.objects = self._named.setdefault(self.url, {})

    @classmethod
    def named(cls, url: str) -> "MemoryStore":
        return cls(url)

    def uri(self, key: str) -> str:
        return f"{self.url}/{key}"

    def path(self, key: str) -> Path:
        raise ObjectStoreError(f"{self.uri(key)} is no file on this machine")

    def get(self, key: str) -> bytes:
        with self._lock:
            if key not in self.objects:
                raise ObjectMissing(f"{self.uri(key)} does not exist")
            return self.objects[key]

    def put(self, key: str, data: bytes) -> None:
        with self._lock:
            self.objects[key] = bytes(data)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        with self._lock:
            if key in self.objects:
                return False
            self.objects[key] = bytes(data)
            return True

    def head(self, key: str) -> ObjectInfo | None:
        with self._lock:
            data = self.objects.get(key)
        return None if data is None else ObjectInfo(key, len(data), "")

    def exists(self, key: str) -> bool:
        with self._lock:
            return key in self.objects

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[ObjectInfo]:
        with self._lock:
            items = sorted((k, len(v)) for k, v in self.objects.items()
                           if k.startswith(prefix) and (start_after is None or k > start_after))
        for key, size in items:
            yield ObjectInfo(key, size, "")

    def copy(self, src: str, dst: str) -> None:
        self.put(dst, self.get(src))

    def delete(self, key: str) -> None:
        with self._lock:
            self.objects.pop(key, None)
