"""Durable file writes: write to a temp name, fsync, rename, fsync the directory."""

import os
import threading
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
