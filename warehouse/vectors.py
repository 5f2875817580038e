"""The embedding store: text vectors on disk, keyed by (text SHA-256, model hash), never computed twice.

<lake>/vectors/<model_hash[:16]>/<batch>.parquet, one file per batch of newly computed vectors, written
all or nothing (temporary name, fsync, rename, fsync the folder) and never changed afterwards: columns
text_sha256 (string) and vector (fixed-size list of float32); the full model hash is in the file's
schema metadata and checked on read. A batch's file name is a hash of its text hashes, so two
processes that compute the same batch write the same file and the rename makes that harmless. Reading
returns every stored vector (a text stored twice keeps its first); a folder's files are few and small
(384 float32 = 1.5 kB per text), so there is no index beyond the dict built on read.
"""

import hashlib
import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from peerlake.warehouse import settings
from peerlake.warehouse.fsutil import atomic_write

_META_KEY = b"peerlake.model_hash"


class VectorStoreError(ValueError):
    pass


class VectorStore:
    def __init__(self, model_hash: str, dim: int, lake_root: Path | None = None):
        if len(model_hash) < 16:
            raise VectorStoreError(f"model hash {model_hash!r} is too short to name a folder")
        self.model_hash = model_hash
        self.dim = dim
        self.folder = Path(lake_root or settings.lake_root()) / "vectors" / model_hash[:16]

    def load(self) -> dict[str, np.ndarray]:
        """text_sha256 → float32 vector, over every batch file of this model."""
        out: dict[str, np.ndarray] = {}
        for path in sorted(self.folder.glob("*.parquet")):
            table = pq.read_table(path)
            recorded = (table.schema.metadata or {}).get(_META_KEY, b"").decode()
            if recorded != self.model_hash:
                raise VectorStoreError(f"{path} holds vectors of model {recorded or '?'}, not {self.model_hash}")
            flat = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
            vectors = flat.astype(np.float32, copy=False).reshape(-1, self.dim)
            for sha, vec in zip(table.column("text_sha256").to_pylist(), vectors, strict=True):
                out.setdefault(sha, vec)
        return out

    def append(self, text_sha256: list[str], vectors: np.ndarray) -> Path | None:
        """Store one batch as one new file; None (no file) for an empty batch."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(text_sha256), self.dim):
            raise VectorStoreError(f"expected {len(text_sha256)} vectors of {self.dim}, got {vectors.shape}")
        if not text_sha256:
            return None
        table = pa.table({"text_sha256": pa.array(text_sha256, pa.string()),
                          "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()),
                                                                      self.dim)})
        table = table.replace_schema_metadata({_META_KEY: self.model_hash.encode()})
        buf = io.BytesIO()
        pq.write_table(table, buf)
        name = hashlib.sha256("\n".join(sorted(text_sha256)).encode()).hexdigest()[:24]
        path = self.folder / f"{name}.parquet"
        atomic_write(path, buf.getvalue())
        return path
