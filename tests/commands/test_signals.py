"""Ctrl-C and SIGTERM stop a real `peerlake run` against a loopback model server that is slow to answer,
so the run is mid-call when the signal comes; `peerlake ui` stops every process it started.

Before: Dagster's in-process execution turned SIGINT and SIGTERM into a retry of the step, so a run went
on for minutes after both, and the retried step replayed the call this run had made as "replayed"."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from peerlake.warehouse import Lake
from peerlake.warehouse.log import EventLog
from tests.orchestration.conftest import PEERLAKE, REPO, ReviewServer

pytestmark = pytest.mark.pipeline

DELAY_S = 6.0  # each answer's delay: the signal lands while calls are in flight
SAMPLES = 4  # one paper × 4 reviews; the reviewers call 2 at a time (ReviewerResource.max_concurrency)


def _env(server, lake: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update({"PEERLAKE_HOME": str(lake), "PEERLAKE_PROVIDER": "openai_compatible",
                "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
                "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": str(SAMPLES)})
    return env


def _start(server, lake: Path) -> subprocess.Popen:
    return subprocess.Popen([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _when_in_flight(server, proc, timeout_s: float = 300.0) -> None:
    deadline = time.monotonic() + timeout_s
    while server.in_flight == 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no call started"
        time.sleep(0.05)
    time.sleep(0.5)  # the second slot's call starts too


def _ok_calls(lake: Path) -> list:
    return [e for e in EventLog(Lake(lake)).iter_events("llm_call") if e.status == "ok"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_first_signal_stops_the_run_after_the_calls_in_flight(tmp_path, signum):
    lake = tmp_path / "lake"
    with ReviewServer(delay_s=DELAY_S) as server:
        proc = _start(server, lake)
        _when_in_flight(server, proc)
        in_flight = server.requests
        proc.send_signal(signum)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - sent
        assert proc.returncode == 128 + signum, (out, err)
        assert "stopping: no new call starts" in err and "stopped on request" in out, (out, err)
        # within one call: the calls in flight finish (DELAY_S), none starts after the signal
        assert took < DELAY_S + 30 and server.requests == in_flight < SAMPLES, (took, server.requests)
        made = _ok_calls(lake)
        assert len(made) == in_flight  # every finished call is recorded

        server.delay_s = 0.0
        rerun = subprocess.run([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                               capture_output=True, text=True, timeout=600)
        said = " ".join(rerun.stdout.split())
        assert rerun.returncode == 0, (rerun.stdout, rerun.stderr)
        assert server.requests == SAMPLES  # the recorded calls replayed: none paid twice
        assert f"{SAMPLES - in_flight} model calls made, {in_flight} replayed" in said, said
        assert f"made {SAMPLES - in_flight} · replayed {in_flight}" in rerun.stderr, rerun.stderr


def test_the_second_sigint_stops_at_once_and_the_lake_stays_readable(tmp_path):
    lake = tmp_path / "lake"
    with ReviewServer(delay_s=30.0) as server:
        proc = _start(server, lake)
        _when_in_flight(server, proc)
        proc.send_signal(signal.SIGINT)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and time.monotonic() - sent < 10, (out, err)
        assert "stopped at once" in err, err
        assert _ok_calls(lake) == []  # the calls in flight were not answered: nothing recorded for them
        first = server.requests

        server.delay_s = 0.0
        rerun = subprocess.run([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                               capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, (rerun.stdout, rerun.stderr)
        assert server.requests == first + SAMPLES and len(_ok_calls(lake)) == SAMPLES


def test_progress_shows_from_the_first_second_without_a_terminal_and_the_log_file_is_written(tmp_path):
    lake = tmp_path / "lake"
    with ReviewServer(delay_s=1.0) as server:
        res = subprocess.run([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                             capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, (res.stdout, res.stderr)
    for said in ("loading the pipeline", "starting a Dagster run", f"AI reviews (demo): {SAMPLES} calls",
                 f"AI reviews (demo): call 1 of {SAMPLES} started",
                 f"{SAMPLES}/{SAMPLES} · ", f"made {SAMPLES} · replayed 0"):
        assert said in res.stderr, (said, res.stderr)
    named = next(line for line in res.stdout.splitlines() if "(log: " in line)
    log = Path(named.split("(log: ", 1)[1].split(")", 1)[0])
    text = log.read_text()
    assert "ai_reviews" in text and f"call 1 of {SAMPLES} started" in text  # Dagster's steps and the progress


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ui_stops_the_webserver_daemon_and_code_servers_on_one_sigint(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_")}
    env["PEERLAKE_HOME"] = str(tmp_path / "lake")
    proc = subprocess.Popen([PEERLAKE, "ui", "--port", str(_free_port())], env=env, cwd=REPO,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            started = psutil.Process(proc.pid).children(recursive=True)
            if any("code-server" in " ".join(_cmdline(p)) for p in started):  # dagster dev's last to start
                break
            time.sleep(0.5)
        assert proc.poll() is None and len(started) >= 2, [_cmdline(p) for p in started]
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=90)
        assert proc.returncode == 130
        left = [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        assert left == [], [_cmdline(p) for p in left]
    finally:
        for p in started:
            if p.is_running():
                p.kill()
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _cmdline(p) -> list[str]:
    try:
        return p.cmdline()
    except psutil.Error:
        return []
