"""The local-file-system primitives the lake rests on: durable writes (temp name, fsync, rename,
fsync the directory) and advisory locks (flock). Nothing above `warehouse/` uses them directly, so a
lake on object storage replaces this module and the lake's interface, not its callers."""

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Create `path` with `data`, all or nothing, surviving power loss once this returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Unique per process AND thread: two threads may write the same content-addressed blob at once.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


@contextlib.contextmanager
def file_lock(path: Path, shared: bool = False) -> Iterator[None]:
    """An flock held for the block: other processes (and other open()s in this one) wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
