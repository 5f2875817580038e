"""Helpers for the remote-lake tests: a "machine" is a local root sharing one lake URL."""

import io
import os
import sys
from pathlib import Path

import pyarrow.parquet as pq

from peerlake.warehouse.events import PaperIngested
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.stores.s3 import split_url

REPO = Path(__file__).resolve().parents[3]


def machine(tmp_path: Path, name: str, url: str) -> EventLog:
    return EventLog(Lake(tmp_path / name, url))


def paper(log: EventLog, i: int) -> PaperIngested:
    pdf = log.blobs.put(f"pdf of paper {i}".encode())
    package = log.blobs.put(f'{{"paper": {i}}}'.encode())
    return PaperIngested(paper_id=f"p{i}", title=f"Paper {i}", source_uri=f"file:///p{i}.pdf", pdf_sha256=pdf,
                         package_sha256=package, n_pages=1, n_text_records=1, n_chars=10)


def committed_rows(s3, url: str, event_type: str) -> list[dict]:
    """Every row under events/segments/event_type=<t>/, read as dbt's glob reads it (no manifest)."""
    bucket, prefix = split_url(url)
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix=f"{prefix}events/segments/event_type={event_type}/") for o in page.get("Contents", [])]
    return [row for k in keys
            for row in pq.read_table(io.BytesIO(s3.get_object(Bucket=bucket, Key=k)["Body"].read())).to_pylist()]


def keys(s3, url: str, under: str) -> list[str]:
    bucket, prefix = split_url(url)
    return [o["Key"][len(prefix):] for page in s3.get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix=prefix + under) for o in page.get("Contents", [])]


def child_env(home: Path, url: str) -> dict[str, str]:
    return {**os.environ, "PEERLAKE_HOME": str(home), "PEERLAKE_LAKE_URL": url,
            "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


PYTHON = sys.executable
