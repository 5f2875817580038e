"""Helpers for the conformance suite: a "machine" is a local root sharing one lake URL; the store is read and
tampered with through the Store interface only, so every adapter runs the same test."""

import io
from pathlib import Path

import pyarrow.parquet as pq

from peerlake.warehouse.events import PaperIngested
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.stores import Store, open_store


def machine(tmp_path: Path, name: str, url: str) -> EventLog:
    return EventLog(Lake(tmp_path / name, url))


def store(url: str) -> Store:
    return open_store(url)


def paper(log: EventLog, i: int) -> PaperIngested:
    pdf = log.blobs.put(f"pdf of paper {i}".encode())
    package = log.blobs.put(f'{{"paper": {i}}}'.encode())
    return PaperIngested(paper_id=f"p{i}", title=f"Paper {i}", source_uri=f"file:///p{i}.pdf", pdf_sha256=pdf,
                         package_sha256=package, n_pages=1, n_text_records=1, n_chars=10)


def keys(url: str, under: str) -> list[str]:
    return [info.key for info in store(url).list(under)]


def committed_rows(url: str, event_type: str) -> list[dict]:
    """Every row under events/segments/event_type=<t>/, read as dbt's glob reads it (no manifest)."""
    s = store(url)
    return [row for k in keys(url, f"events/segments/event_type={event_type}/")
            for row in pq.read_table(io.BytesIO(s.get(k))).to_pylist()]
