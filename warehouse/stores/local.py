"""The Store on a local disk: a key is a file under `root`; writes are temp file, fsync, rename, fsync the
folder; `put_if_absent` links a fully written temp file to its name, which fails if the name exists."""

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from peerlake.warehouse.fsutil import atomic_write, create_exclusive
from peerlake.warehouse.stores import KeyOutsideStore, ObjectInfo, ObjectMissing


class LocalStore:
    local_files = True

    def __init__(self, root: Path, shared: bool = False):
        self.root = Path(root)
        self.url = f"file://{self.root}"
        # A lake root is one machine's: its processes see each other's write-ahead files and flocks. A
        # folder named by a lake URL (file://, e.g. a network share) may be written by other machines too.
        self.shared = shared

    @property
    def in_place(self) -> bool:
        # A folder other machines write too is read like a remote store: cached, staged by upload.
        return not self.shared

    def path(self, key: str) -> Path:
        # Keys come from manifests too, which are files from outside once a lake is copied or shared.
        if not key or key.startswith("/") or ".." in PurePosixPath(key).parts:
            raise KeyOutsideStore(f"{key!r} would leave the lake folder {self.root}; refused")
        return self.root / key

    def uri(self, key: str) -> str:
        return str(self.path(key))

    def get(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            raise ObjectMissing(f"{self.uri(key)} does not exist") from None

    def put(self, key: str, data: bytes) -> None:
        atomic_write(self.path(key), data)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        return create_exclusive(self.path(key), data)

    def head(self, key: str) -> ObjectInfo | None:
        try:
            return ObjectInfo(key, self.path(key).stat().st_size, "")
        except (FileNotFoundError, NotADirectoryError):
            return None

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[ObjectInfo]:
        folder, _, _ = prefix.rpartition("/")
        base = self.root / folder if folder else self.root
        if not base.is_dir():
            return
        keys = []
        for dirpath, _, files in os.walk(base):
            rel = Path(dirpath).relative_to(self.root)
            for name in files:
                if name.startswith("."):  # a temp file of a write in progress
                    continue
                key = f"{rel.as_posix()}/{name}" if str(rel) != "." else name
                if key.startswith(prefix) and (start_after is None or key > start_after):
                    keys.append(key)
        for key in sorted(keys):
            with contextlib.suppress(FileNotFoundError):
                yield ObjectInfo(key, self.path(key).stat().st_size, "")

    def copy(self, src: str, dst: str) -> None:
        self.put(dst, self.get(src))

    def delete(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)
