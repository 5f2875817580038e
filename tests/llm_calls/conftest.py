"""A temp lake, a loopback LLM server and a gateway wired to it, per test."""

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for


@pytest.fixture
def lake_log(lake, monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return EventLog(lake)


@pytest.fixture
def server():
    with FakeLlmServer() as srv:
        yield srv


@pytest.fixture
def make_gateway(lake_log, server):
    def make(**kw) -> Gateway:
        timeout_s = kw.pop("timeout_s", 10.0)
        kw.setdefault("backoff_base_s", 0.01)
        kw.setdefault("backoff_max_s", 0.05)
        return Gateway(lake_log, providers=providers_for(server, timeout_s), **kw)
    return make
