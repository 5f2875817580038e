"""The lake on disk (or, with a lake URL, on object storage): immutable events in append-only segments,
blobs by SHA-256, the DuckDB file."""

from peerlake.warehouse.blobs import BlobStore
from peerlake.warehouse.events import Event, HumanReviewImported, LlmCall, PaperIngested
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog

__all__ = ["BlobStore", "Event", "EventLog", "HumanReviewImported", "Lake", "LlmCall", "PaperIngested"]
