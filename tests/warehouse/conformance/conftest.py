"""The conformance suite: the one commit protocol (numbered manifests, conditional put, roll-forward, request
claims, verify) run on every Store adapter. Local and memory always; S3 against the local moto server
(tests/s3server.py), skipped where moto is not installed, as the other object-storage tests are. A test of one
machine runs on a lake on this disk alone too (no URL: its store is read and written in place)."""

import pytest
from ulid import ULID

from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog
from tests.warehouse.conformance.tamper import seal_three

STORES = ["local", "memory", "s3"]


def new_store_url(kind: str, request, tmp_path) -> str:
    if kind == "s3":
        return request.getfixturevalue("s3_lake_url")
    if kind == "memory":
        return f"memory://{ULID()}"
    return f"file://{tmp_path / 'shared-store'}"


@pytest.fixture(params=STORES)
def store_url(request, tmp_path) -> str:
    """A fresh, empty lake location on one adapter: the lake URL every "machine" of the test shares."""
    return new_store_url(request.param, request, tmp_path)


@pytest.fixture(params=["disk", *STORES])
def any_lake(request, tmp_path) -> Lake:
    """One machine's lake: on this disk (no URL), or with a URL naming a store (a local folder, memory, S3)."""
    if request.param == "disk":
        return Lake(tmp_path / "root")
    return Lake(tmp_path / "root", new_store_url(request.param, request, tmp_path))


@pytest.fixture
def three_seals(any_lake) -> EventLog:
    """Three seals of one WAL, each its own manifest, after the genesis and the schema manifest."""
    return seal_three(EventLog(any_lake))
