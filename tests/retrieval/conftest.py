import json

import pytest

from peerlake.warehouse import EventLog, Lake
from tests.retrieval.s2_server import FakeS2Server

S2_KEY = "s2-test-PEERLAKE-key-7c6b5a4f3e2d"


@pytest.fixture
def log(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    event_log = EventLog(Lake(tmp_path / "lake"))
    yield event_log
    event_log.close()


@pytest.fixture
def s2(monkeypatch):
    """The loopback Graph API; the backend finds it through settings ($PEERLAKE_S2_BASEURL)."""
    with FakeS2Server() as server:
        monkeypatch.setenv("PEERLAKE_S2_BASEURL", server.base_url)
        monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
        yield server


@pytest.fixture
def write_jsonl(tmp_path):
    def write(rows: list, name: str = "related.jsonl") -> object:
        path = tmp_path / name
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
        return path

    return write
