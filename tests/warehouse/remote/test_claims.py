"""Request claims with real processes on S3: two machines asking one new request pay once. (Leases, takeovers
and both doors on every store: tests/warehouse/conformance/test_claims.py.)"""

import json
import subprocess

from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS
from tests.warehouse.remote.support import PYTHON, REPO, child_env, machine

ASKER = """
import json, sys
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider
from tests.llm_calls.support import request
from peerlake.warehouse.log import EventLog

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
