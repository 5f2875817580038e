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


def _create(path: Path, flags: int) -> int:
    """os.open with O_CREAT, making the parent folders only when they are missing (the common case
    on a hot path is that they exist: one syscall, not a mkdir per file)."""
    try:
        return os.open(path, flags | os.O_CREAT, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags | os.O_CREAT, 0o644)


def _synced_temp(path: Path, data: bytes) -> Path:
    """A temp file beside `path` holding `data`, fsynced."""
    # Unique per process AND thread: two threads may write the same content-addressed blob at once.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = _create(tmp, os.O_WRONLY | os.O_TRUNC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    return tmp


def atomic_write(path: Path, data: bytes) -> None:
    """Create `path` with `data`, all or nothing, surviving power loss once this returns."""
    os.replace(_synced_temp(path, data), path)
    fsync_dir(path.parent)


def create_exclusive(path: Path, data: bytes) -> bool:
    """Create `path` with `data` unless it exists (True if this call created it), all or nothing: the
    bytes are durable before the name appears, and link(2) fails when the name exists, so exactly one of
    several creators wins."""
    tmp = _synced_temp(path, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink()
    fsync_dir(path.parent)
    return True


@contextlib.contextmanager
def file_lock(path: Path, shared: bool = False) -> Iterator[None]:
    """An flock held for the block: other processes (and other open()s in this one) wait."""
    fd = _create(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
