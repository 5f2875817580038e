"""Two processes asking the same new question at the same moment pay for it once."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys
from pathlib import Path
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider
from tests.llm_calls.support import request
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog

gw = Gateway(EventLog(Lake(Path(sys.argv[1]))), providers={"openai": OpenAIProvider(base_url=sys.argv[2])})
print("ready", flush=True)
sys.stdin.readline()  # start line: both children call at once
r = gw.call(request())
print(json.dumps({"replayed": r.replayed, "text": r.text}), flush=True)
"""


def test_concurrent_processes_make_one_provider_call(lake_log, server):
    server.delay_s = 1.0  # long enough that the second process arrives mid-call
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(lake_log.lake.root), server.openai_base_url],
                                 cwd=REPO, env=dict(os.environ), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for child in children:
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    outs = [json.loads(child.communicate(timeout=60)[0].strip().splitlines()[-1]) for child in children]
    assert server.requests == 1
    assert sorted(o["replayed"] for o in outs) == [False, True]
    assert outs[0]["text"] == outs[1]["text"]
    assert [e.status for e in lake_log.iter_events("llm_call")] == ["ok"]
