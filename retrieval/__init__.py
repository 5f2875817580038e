"""Literature searches as logged, replayable calls (`retrieval_call` events), for the novelty judge.

| module | holds |
|---|---|
| `types.py` | `RetrievalRequest` (its `request_key`), `Candidate`, `RetrievalResult` |
| `client.py` | `RetrievalClient`: replay, per-key lock, retries, an event per attempt |
| `backend.py`, `backends.py` | the backend interface and errors; `make_backend(name, log)` |
| `corpus.py`, `offline.py` | the default backend: BM25 over every work the lake knows |
| `semantic_scholar.py` | the Graph API backend (optional key from the environment) |
| `redact.py` | keeps API keys out of the events |
"""

from peerlake.retrieval.backends import BACKENDS, make_backend
from peerlake.retrieval.client import RetrievalBatchFailed, RetrievalClient, RetrievalFailed
from peerlake.retrieval.types import Candidate, RetrievalRequest, RetrievalResult

__all__ = ["BACKENDS", "Candidate", "RetrievalBatchFailed", "RetrievalClient", "RetrievalFailed",
           "RetrievalRequest", "RetrievalResult", "make_backend"]
