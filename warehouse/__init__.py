"""The lake on disk (or, with a lake URL, on object storage): immutable events in append-only segments,
blobs by SHA-256, the DuckDB file."""

from warehouse.blobs import BlobStore
from warehouse.events import Event, HumanReviewImported, LlmCall, PaperIngested
from warehouse.lake import Lake
from warehouse.log import EventLog

__all__ = ["BlobStore", "Event", "EventLog", "HumanReviewImported", "Lake", "LlmCall", "PaperIngested"]
