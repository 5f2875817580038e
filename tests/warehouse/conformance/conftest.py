"""The conformance suite: the one commit protocol (numbered manifests, conditional put, roll-forward, request
claims, verify) run on every Store adapter. Local and memory always; S3 against the local moto server
(tests/s3server.py), skipped where moto is not installed, as the other object-storage tests are."""

import pytest
from ulid import ULID

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
