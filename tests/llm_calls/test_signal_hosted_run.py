"""The first Ctrl-C stops a real `peerlake run` on a hosted model within seconds, not after its calls in
flight: the reviews go to Gemini's generateContent on the loopback server, whose answers take 30 s; the run
exits on the signal, records none of the abandoned calls, and the next run makes every one of them.
(tests/commands/test_signals.py: the same signal against a self-hosted server, whose calls finish.)"""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from peerlake.warehouse import Lake
from peerlake.warehouse.log import EventLog
from tests.llm_calls.support import FAKE_KEYS
from tests.orchestration.conftest import PEERLAKE, REPO, ReviewServer

pytestmark = pytest.mark.pipeline

SLOW_S = 30.0
SAMPLES = 4  # one paper × 4 reviews, 2 at a time


def _env(server, lake: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update(FAKE_KEYS)
    env.update({"PEERLAKE_HOME": str(lake), "PEERLAKE_PROVIDER": "gemini", "PEERLAKE_MODEL": "gemini-2.5-flash-lite",
                "PEERLAKE_GEMINI_BASE_URL": server.url, "PEERLAKE_DEMO_ONLY": "demo-001",
                "PEERLAKE_SAMPLES": str(SAMPLES)})
    return env


def _ok_calls(lake: Path) -> list:
    return [e for e in EventLog(Lake(lake)).iter_events("llm_call") if e.status == "ok"]


def test_the_first_sigint_abandons_hosted_calls_in_flight_and_the_next_run_makes_them(tmp_path):
    lake = tmp_path / "lake"
    with ReviewServer(delay_s=SLOW_S) as server:
        proc = subprocess.Popen([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while server.in_flight == 0:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no call started"
            time.sleep(0.05)
        time.sleep(0.5)  # the second slot's call starts too
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - sent
        assert proc.returncode == 130, (out, err)
        assert "stopped on request" in out, (out, err)
        assert took < 15, f"{took:.1f} s from Ctrl-C to exit with {SLOW_S:.0f} s calls in flight"
        assert "Traceback" not in err, err
        assert _ok_calls(lake) == []  # nothing half-done recorded
        first = server.requests
        assert 0 < first < SAMPLES

        server.delay_s = 0.0
        rerun = subprocess.run([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                               capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, (rerun.stdout, rerun.stderr)
        assert server.requests == first + SAMPLES and len(_ok_calls(lake)) == SAMPLES
