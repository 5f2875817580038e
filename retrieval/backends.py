"""The backends by name, as a study names them (`[judging] retrieval = "offline"`)."""

from retrieval.backend import Backend
from warehouse.log import EventLog

BACKENDS = ("offline", "semantic_scholar")


def make_backend(name: str, log: EventLog) -> Backend:
    if name == "offline":
        from retrieval.offline import OfflineBackend

        return OfflineBackend(log)
    if name == "semantic_scholar":
        from retrieval.semantic_scholar import SemanticScholarBackend

        return SemanticScholarBackend()
    raise ValueError(f"unknown retrieval backend {name!r}; known: {', '.join(BACKENDS)}")
