"""The backends by name, as a study names them (`[judging] retrieval = "offline"`)."""

from peerlake.retrieval.backend import Backend
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.registry import Registry

# name -> Backend class, imported on first use (the offline index loads bm25s): a new backend is a
# Backend subclass in its own module and one line here.
BACKENDS: Registry[type[Backend]] = Registry(
    "retrieval backend", error=ValueError,
    hint="Name one of them in a study's [judging] retrieval, or add one: a Backend subclass in retrieval/ "
         "and a line in retrieval/backends.py.")
BACKENDS.add_lazy("offline", "peerlake.retrieval.offline:OfflineBackend")
BACKENDS.add_lazy("semantic_scholar", "peerlake.retrieval.semantic_scholar:SemanticScholarBackend")


def make_backend(name: str, log: EventLog) -> Backend:
    return BACKENDS[name].for_lake(log)
