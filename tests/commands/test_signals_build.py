"""Ctrl-C and SIGTERM stop a real `peerlake build` while dbt runs: the first signal cancels dbt and the
gates, publishes nothing (the marts published before stay served, byte for byte) and exits 130/143
within seconds saying how to go on; a second signal exits at once.

Before: the first signal only set the model calls' stop flag, so the build ran dbt and the gates to the
end and published, minutes later, as if nothing had been asked."""

import hashlib
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


def _env(lake: Path, server=None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update({"PEERLAKE_HOME": str(lake), "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": "2"})
    if server is not None:
        env.update({"PEERLAKE_PROVIDER": "openai_compatible", "PEERLAKE_BASE_URL": server.openai_base_url,
                    "PEERLAKE_MODEL": "fake-reviewer"})
    return env


@pytest.fixture(scope="module")
def published_lake(tmp_path_factory) -> Path:
    """A small lake whose marts are built and published: one demo paper, two reviews."""
    lake = tmp_path_factory.mktemp("build-signals") / "lake"
    with ReviewServer() as server:
        res = subprocess.run([PEERLAKE, "run", "demo"], env=_env(lake, server), cwd=REPO, capture_output=True,
                             text=True, timeout=900)
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert Lake(lake).duckdb_path.is_file()
    return lake


def _fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def _events(lake: Path) -> dict[str, int]:
    log = EventLog(Lake(lake))
    return {t: log.count(t) for t in ("paper_ingested", "llm_call", "study_resolved")}


def _dbt_build_running(proc: subprocess.Popen, timeout_s: float = 300.0) -> psutil.Process:
    """The `dbt build` the command started, once it runs (the first dbt step of the build)."""
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
                return child
        time.sleep(0.1)
    raise AssertionError("no `dbt build` started")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_first_signal_cancels_the_build_and_publishes_nothing(published_lake, signum):
    lake = published_lake
    published, events = _fingerprint(Lake(lake).duckdb_path), _events(lake)
    proc = subprocess.Popen([PEERLAKE, "build", "--force"], env=_env(lake), cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    dbt = _dbt_build_running(proc)
    proc.send_signal(signum)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=120)
    took = time.monotonic() - sent
    said = " ".join(out.split())
    assert proc.returncode == 128 + signum, (out, err)
    assert took < 60, (took, out, err)
    assert "stopping the build" in err and "nothing will be published" in err, err
    assert "Traceback" not in err, err  # only dbt was interrupted, not Dagster's log tailers
    assert "Build stopped on request" in said and "nothing was published" in said, said
    assert "`peerlake build --force` builds again" in said, said
    assert "Built, audited and published" not in said
    assert not dbt.is_running() or dbt.status() == psutil.STATUS_ZOMBIE  # dbt was cancelled, not left behind
    assert _fingerprint(Lake(lake).duckdb_path) == published  # the published marts are the ones from before
    assert _events(lake) == events  # the build writes no event, and loses none


def test_a_second_signal_stops_the_build_at_once_and_the_published_marts_stay_readable(published_lake):
    lake = published_lake
    published = _fingerprint(Lake(lake).duckdb_path)
    proc = subprocess.Popen([PEERLAKE, "build", "--force"], env=_env(lake), cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _dbt_build_running(proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and time.monotonic() - sent < 10, (out, err)
    assert "stopped at once" in err, err
    assert _fingerprint(Lake(lake).duckdb_path) == published
    query = subprocess.run([PEERLAKE, "query", "select count(*) as n from fct_ai_review_scores"], env=_env(lake),
                           cwd=REPO, capture_output=True, text=True, timeout=120)
    assert query.returncode == 0, (query.stdout, query.stderr)
