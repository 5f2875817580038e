"""Content-addressed blob store: a payload's name is its SHA-256, so it is written once and
every read can re-check it."""

import hashlib
import re
from pathlib import Path

from warehouse.fsutil import atomic_write
from warehouse.lake import Lake


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


class BlobStore:
    def __init__(self, lake: Lake):
        self.lake = lake

    def path(self, sha: str) -> Path:
        sha = blob_name(sha)
        return self.lake.blobs_dir / sha[:2] / sha

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        p = self.path(sha)
        if not p.exists():  # same name means same bytes: never rewrite
            atomic_write(p, data)
        return sha

    def put_text(self, text: str) -> str:
        return self.put(text.encode("utf-8"))

    def get(self, sha: str) -> bytes:
        data = self.path(sha).read_bytes()
        if sha256_hex(data) != sha:
            raise BlobCorrupted(f"blob {sha} at {self.path(sha)} does not match its hash")
        return data

    def get_text(self, sha: str) -> str:
        return self.get(sha).decode("utf-8")

    def exists(self, sha: str) -> bool:
        return is_blob_name(sha) and self.path(sha).exists()

    def iter_all(self):
        if self.lake.blobs_dir.exists():
            for p in sorted(self.lake.blobs_dir.glob("??/*")):
                if not p.name.startswith("."):
                    yield p
