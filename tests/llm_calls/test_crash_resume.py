"""kill -9 in the middle of a batch: no completed call is lost, and none is paid for twice on resume."""

import collections
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
N = 60

CHILD = """
import sys
from pathlib import Path
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider
from tests.llm_calls.support import request
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog

gw = Gateway(EventLog(Lake(Path(sys.argv[1]))), max_concurrency=4,
             providers={"openai": OpenAIProvider(base_url=sys.argv[2])})
reqs = [request(sample_index=i) for i in range(int(sys.argv[3]))]
# Each key is printed only after call() has returned it: that is a "completed call".
import threading
from concurrent.futures import ThreadPoolExecutor
lock = threading.Lock()
def one(r):
    res = gw.call(r)
    with lock:  # one whole line per call, never interleaved between threads
        sys.stdout.write(("replayed " if res.replayed else "made ") + res.request_key + chr(10))
        sys.stdout.flush()
with ThreadPoolExecutor(4) as pool:
    list(pool.map(one, reqs))
"""


def _run_child(lake_root, server, kill_after=None):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(lake_root), server.openai_base_url, str(N)],
                            cwd=REPO, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.split())
        if kill_after is not None and len(lines) >= kill_after:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=60)
    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr.read()
    return proc.returncode, lines


def test_kill_9_mid_batch_loses_nothing_and_resume_pays_only_for_the_rest(lake_log, server):
    from tests.llm_calls.support import request

    server.delay_s = 0.05  # calls are in flight when the kill lands
    code, acked = _run_child(lake_log.lake.root, server, kill_after=20)
    assert code == -signal.SIGKILL and len(acked) == 20
    ok = {e.request_key for e in lake_log.iter_events("llm_call") if e.status == "ok"}
    assert {key for _, key in acked} <= ok  # every completed call survived the kill
    paid_before_resume = server.requests

    code, resumed = _run_child(lake_log.lake.root, server)
    assert code == 0 and len(resumed) == N
    replayed = {key for kind, key in resumed if kind == "replayed"}
    assert ok <= replayed  # nothing recorded before the crash is asked for again
    events = [e for e in lake_log.iter_events("llm_call") if e.status == "ok"]
    per_key = collections.Counter(e.request_key for e in events)
    assert len(per_key) == N and max(per_key.values()) == 1
    # The child's provider sends to the loopback server, so that endpoint is part of every key.
    assert {request(sample_index=i, base_url=server.openai_base_url).request_key for i in range(N)} == set(per_key)
    # The resume paid exactly for the requests with no event; the only calls ever paid twice are
    # the ones the server answered while the process was being killed (at most one per worker).
    assert server.requests - paid_before_resume == N - len(ok)
    assert server.requests <= N + 4
