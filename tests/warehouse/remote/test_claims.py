"""Request claims: two machines asking one new request pay once; a crashed holder's lease is taken over."""

import json
import subprocess
import time
from datetime import UTC, datetime, timedelta

from llm_calls.gateway import Gateway
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for, request
from tests.warehouse.remote.support import PYTHON, REPO, child_env, keys, machine
from warehouse.claims import claim_key
from warehouse.objectstore import ObjectStore

ASKER = """
import json, sys
from llm_calls.gateway import Gateway
from llm_calls.providers.openai_chat import OpenAIProvider
from tests.llm_calls.support import request
from warehouse.log import EventLog

gw = Gateway(EventLog(), providers={"openai": OpenAIProvider(base_url=sys.argv[1])})
print("ready", flush=True)
sys.stdin.readline()  # start line: both machines ask at once
r = gw.call(request())
print(json.dumps({"replayed": r.replayed, "text": r.text}), flush=True)
"""


def test_two_machines_asking_one_new_request_pay_once(tmp_path, s3_lake_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    with FakeLlmServer() as server:
        server.delay_s = 1.0  # the second machine arrives mid-call
        children = [subprocess.Popen([PYTHON, "-c", ASKER, server.openai_base_url], cwd=REPO,
                                     env=child_env(tmp_path / name, s3_lake_url), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True) for name in ("a", "b")]
        for child in children:
            assert child.stdout.readline().strip() == "ready"
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        outs = [json.loads(child.communicate(timeout=60)[0].strip().splitlines()[-1]) for child in children]
        assert server.requests == 1
    assert sorted(o["replayed"] for o in outs) == [False, True]
    assert outs[0]["text"] == outs[1]["text"]
    assert [e.status for e in machine(tmp_path, "c", s3_lake_url).iter_events("llm_call")] == ["ok"]


def _stale_claim(url: str, key: str, lease_s: float) -> None:
    now = datetime.now(UTC)
    ObjectStore(url).put(claim_key(key, 1), json.dumps({
        "owner": "crashed", "host": "elsewhere", "pid": 1, "claimed_at": now.isoformat(),
        "lease_until": (now + timedelta(seconds=lease_s)).isoformat()}).encode())


def test_an_expired_claim_is_taken_over(tmp_path, s3_lake_url):
    log = machine(tmp_path, "a", s3_lake_url)
    _stale_claim(s3_lake_url, "k1", -1.0)  # its holder died and its lease ran out
    started = time.monotonic()
    with log.request_lock("k1"):
        assert time.monotonic() - started < 1.0
        assert keys(ObjectStore(s3_lake_url).client, s3_lake_url, "claims/k1/") == [
            "claims/k1/000001.json", "claims/k1/000002.json"]
    assert "claims/k1/000002.done" in keys(ObjectStore(s3_lake_url).client, s3_lake_url, "claims/k1/")


def test_a_live_claim_is_waited_for_until_its_lease_ends(tmp_path, s3_lake_url):
    log = machine(tmp_path, "a", s3_lake_url)
    _stale_claim(s3_lake_url, "k2", 1.0)  # held by a machine that then went silent
    started = time.monotonic()
    with log.request_lock("k2"):
        waited = time.monotonic() - started
    assert 0.9 <= waited < 5.0
    assert keys(ObjectStore(s3_lake_url).client, s3_lake_url, "claims/k2/") == [
        "claims/k2/000001.json", "claims/k2/000002.done", "claims/k2/000002.json"]


def test_one_request_asked_twice_in_one_batch_is_paid_once(tmp_path, s3_lake_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    with FakeLlmServer() as server:
        server.delay_s = 0.3
        gw = Gateway(machine(tmp_path, "a", s3_lake_url), providers=providers_for(server), max_concurrency=2)
        results = gw.call_many([request(), request()], progress=False)
        assert server.requests == 1
    assert sorted(r.replayed for r in results) == [False, True]
