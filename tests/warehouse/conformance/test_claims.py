"""Request claims in the store: one paid request across machines, through both doors (the model gateway and
the retrieval client); a crashed holder's lease is taken over, a live one waited for."""

import json
import threading
import time
from datetime import UTC, datetime, timedelta

from peerlake.llm_calls.gateway import Gateway
from peerlake.retrieval import RetrievalClient, RetrievalRequest
from peerlake.warehouse.claims import claim_key
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for, request
from tests.retrieval.s2_server import FakeS2Server
from tests.warehouse.conformance.support import keys, machine, store


def _stale_claim(url: str, key: str, lease_s: float) -> None:
    now = datetime.now(UTC)
    store(url).put(claim_key(key, 1), json.dumps({
        "owner": "crashed", "host": "elsewhere", "pid": 1, "claimed_at": now.isoformat(),
        "lease_until": (now + timedelta(seconds=lease_s)).isoformat()}).encode())


def test_an_expired_claim_is_taken_over(tmp_path, store_url):
    log = machine(tmp_path, "a", store_url)
    _stale_claim(store_url, "k1", -1.0)  # its holder died and its lease ran out
    started = time.monotonic()
    with log.request_lock("k1"):
        assert time.monotonic() - started < 1.0
        assert keys(store_url, "claims/k1/") == ["claims/k1/000001.json", "claims/k1/000002.json"]
    assert "claims/k1/000002.done" in keys(store_url, "claims/k1/")


def test_a_live_claim_is_waited_for_until_its_lease_ends(tmp_path, store_url):
    log = machine(tmp_path, "a", store_url)
    _stale_claim(store_url, "k2", 1.0)  # held by a machine that then went silent
    started = time.monotonic()
    with log.request_lock("k2"):
        waited = time.monotonic() - started
    assert 0.9 <= waited < 5.0
    assert keys(store_url, "claims/k2/") == ["claims/k2/000001.json", "claims/k2/000002.done",
                                             "claims/k2/000002.json"]


def _at_once(fns) -> list:
    results = [None] * len(fns)
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, fns[i]())) for i in range(len(fns))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_one_new_request_asked_by_two_machines_is_paid_once(tmp_path, store_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    with FakeLlmServer() as server:
        server.delay_s = 1.0  # the second machine arrives mid-call
        gateways = [Gateway(machine(tmp_path, name, store_url), providers=providers_for(server)) for name in "ab"]
        results = _at_once([lambda g=g: g.call(request()) for g in gateways])
        assert server.requests == 1
    assert sorted(r.replayed for r in results) == [False, True]
    assert results[0].text == results[1].text
    assert [e.status for e in machine(tmp_path, "c", store_url).iter_events("llm_call")] == ["ok"]


def test_one_request_asked_twice_in_one_batch_is_paid_once(tmp_path, store_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    with FakeLlmServer() as server:
        server.delay_s = 0.3
        gw = Gateway(machine(tmp_path, "a", store_url), providers=providers_for(server), max_concurrency=2)
        results = gw.call_many([request(), request()], progress=False)
        assert server.requests == 1
    assert sorted(r.replayed for r in results) == [False, True]


def test_two_machines_asking_one_new_search_pay_once(tmp_path, store_url, monkeypatch):
    """The retrieval door takes the same claim as the gateway: a literature search is paid once per lake,
    not once per machine."""
    req = RetrievalRequest(backend="semantic_scholar", query="low-rank adaptation", limit=3)
    with FakeS2Server() as s2:
        monkeypatch.setenv("PEERLAKE_S2_BASEURL", s2.base_url)
        monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
        s2.delay_s = 1.0  # the second machine arrives mid-search
        clients = [RetrievalClient(machine(tmp_path, name, store_url), backoff_base_s=0.01, backoff_max_s=0.05)
                   for name in "ab"]
        results = _at_once([lambda c=c: c.search(req) for c in clients])
        assert len(s2.requests) == 1
    assert sorted(r.replayed for r in results) == [False, True]
    assert results[0].candidates == results[1].candidates
    # One claim, taken and released once (the key is the bound request's: the backend adds its version).
    claims = keys(store_url, "claims/retrieval_call/")
    assert [c.rsplit("/", 1)[-1] for c in claims] == ["000001.done", "000001.json"]
    assert len({c.rsplit("/", 1)[0] for c in claims}) == 1
    assert [e.status for e in machine(tmp_path, "c", store_url).iter_events("retrieval_call")] == ["ok"]
