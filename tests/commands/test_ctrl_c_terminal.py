"""A terminal's Ctrl-C during a real `peerlake run` ends it with a short "stopped" message and exit 130, and no
traceback on the terminal: in the model steps and in the build. A terminal sends SIGINT to the whole foreground
process group, so the run is started in a session of its own and the group is signalled (tests/commands/
test_signals.py signals the one process, which never reached Dagster's helper processes).

Before: each of Dagster's compute-log watchers (`watch_orphans`, a Python child per captured stream) died of the
signal printing a KeyboardInterrupt traceback over the terminal. Now the run's own fds 1 and 2 point at its log
file, so those tracebacks are there, with the rest of what the run said."""

import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from peerlake.warehouse import Lake
from peerlake.warehouse.log import EventLog
from tests.orchestration.conftest import PEERLAKE, REPO, ReviewServer

pytestmark = pytest.mark.pipeline

DELAY_S = 3.0  # a self-hosted server's answer: the calls in flight finish and are kept
SAMPLES = 4  # one paper × 4 reviews, 2 at a time


def _env(server, lake: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update({"PEERLAKE_HOME": str(lake), "PEERLAKE_PROVIDER": "openai_compatible",
                "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
                "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": str(SAMPLES)})
    return env


def _start(args: list[str], server, lake: Path) -> subprocess.Popen:
    return subprocess.Popen([PEERLAKE, *args], env=_env(server, lake), cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _ctrl_c(proc: subprocess.Popen, timeout_s: float = 120) -> tuple[str, str, float]:
    """SIGINT to the run's process group, as a terminal's Ctrl-C; (stdout, stderr, seconds to exit)."""
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=timeout_s)
    return out, err, time.monotonic() - sent


def _no_traceback(out: str, err: str) -> None:
    for word in ("Traceback", "KeyboardInterrupt"):
        assert word not in out and word not in err, (out, err)


def _log_file(out: str) -> Path:
    return Path(out.split("Details: ", 1)[1].split()[0])


def _ok_calls(lake: Path) -> list:
    return [e for e in EventLog(Lake(lake)).iter_events("llm_call") if e.status == "ok"]


def test_ctrl_c_in_the_model_steps_says_stopped_without_a_traceback_and_the_rerun_pays_nothing_twice(tmp_path):
    lake = tmp_path / "lake"
    with ReviewServer(delay_s=DELAY_S) as server:
        proc = _start(["run", "demo", "--no-build"], server, lake)
        deadline = time.monotonic() + 300
        while server.in_flight == 0:  # the first call has started
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no call started"
            time.sleep(0.05)
        out, err, took = _ctrl_c(proc)
        said = " ".join(out.split())
        assert proc.returncode == 130, (out, err)
        assert took < DELAY_S + 20, f"{took:.1f} s from Ctrl-C to exit"  # the calls in flight, then the end
        _no_traceback(out, err)
        kept = len(_ok_calls(lake))
        assert 0 < kept == server.requests < SAMPLES  # the calls in flight finished and were recorded
        assert "stopped on request" in said and f"{kept} calls made in this run are kept in the log" in said, said
        assert "run the same command again: peerlake run demo --no-build" in said, said
        log = _log_file(said).read_text()
        assert "KeyboardInterrupt" in log  # what Dagster's watchers printed is kept, in the log file
        assert "asked to stop" in log  # and the steps' own account of the stop

        server.delay_s = 0.0
        rerun = subprocess.run([PEERLAKE, "run", "demo", "--no-build"], env=_env(server, lake), cwd=REPO,
                               capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, (rerun.stdout, rerun.stderr)
        calls = _ok_calls(lake)
        assert server.requests == SAMPLES and len(calls) == SAMPLES  # none paid twice, none lost
        assert len({c.request_key for c in calls}) == SAMPLES
        assert f"{SAMPLES - kept} model calls made, {kept} replayed" in " ".join(rerun.stdout.split())


def _dbt_build_running(proc: subprocess.Popen, timeout_s: float = 600.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                args = child.cmdline()
            except psutil.Error:
                continue
            if any(Path(a).name == "dbt" for a in args) and "build" in args:
                time.sleep(1.5)  # into its models, not still starting
                return
        time.sleep(0.1)
    raise AssertionError("no `dbt build` started")


def test_ctrl_c_in_the_build_says_stopped_without_a_traceback_and_the_rerun_publishes(tmp_path):
    lake = tmp_path / "lake"
    with ReviewServer() as server:
        proc = _start(["run", "demo"], server, lake)
        _dbt_build_running(proc)
        out, err, took = _ctrl_c(proc)
        said = " ".join(out.split())
        assert proc.returncode == 130, (out, err)
        assert took < 60, f"{took:.1f} s from Ctrl-C to exit"
        _no_traceback(out, err)
        assert "stopping the build" in err, err
        assert f"{SAMPLES} calls made in this run are kept in the log" in said, said
        assert "The build was stopped: nothing was published." in said, said
        assert not Lake(lake).duckdb_path.exists()
        assert "KeyboardInterrupt" in _log_file(said).read_text()

        rerun = subprocess.run([PEERLAKE, "run", "demo"], env=_env(server, lake), cwd=REPO, capture_output=True,
                               text=True, timeout=900)
        assert rerun.returncode == 0, (rerun.stdout, rerun.stderr)
        assert server.requests == SAMPLES and len(_ok_calls(lake)) == SAMPLES  # every call replayed
        assert Lake(lake).duckdb_path.exists()  # built and published this time
