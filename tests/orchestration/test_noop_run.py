"""A `peerlake run` with nothing new decides so before Dagster is imported (orchestration/noop_run.py), and a run
with one new call still goes the normal path. Real runs against the loopback server; whether the process
imported Dagster is read off `python -X importtime` (every module a process imports is listed on its stderr).

Before: the second run loaded the dbt project and every Dagster definition (~10 s on the demo lake) and only
then found that it had no call to make and nothing to build."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from peerlake.warehouse import Lake
from peerlake.warehouse.log import EventLog
from tests.orchestration.conftest import PEERLAKE, REPO, ReviewServer

pytestmark = pytest.mark.pipeline


@pytest.fixture(scope="module")
def server():
    with ReviewServer() as s:
        yield s


@pytest.fixture(scope="module")
def lake(server, tmp_path_factory) -> Path:
    """One demo paper × 2 reviews, run, built and published."""
    root = tmp_path_factory.mktemp("noop-run") / "lake"
    res = _run(["run", "demo"], server, root)
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert server.requests == 2 and Lake(root).duckdb_path.is_file()
    return root


def _env(server, lake: Path, samples: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    env.update({"PEERLAKE_HOME": str(lake), "PEERLAKE_PROVIDER": "openai_compatible",
                "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
                "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": str(samples)})
    return env


def _run(args: list[str], server, lake: Path, samples: int = 2) -> subprocess.CompletedProcess:
    """`peerlake ARGS` with the interpreter listing every module it imports (-X importtime, on stderr)."""
    return subprocess.run([sys.executable, "-X", "importtime", PEERLAKE, *args], env=_env(server, lake, samples),
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def _imported(stderr: str) -> set[str]:
    """The modules an -X importtime process imported: `import time: self | cumulative | <indent>name`."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def _why(res: subprocess.CompletedProcess) -> list[str]:
    """Why the run took the normal path, as it says (a check that sees the checkout change under it says so)."""
    return [line for line in res.stderr.splitlines() if "a Dagster run is needed" in line]


def _said(res: subprocess.CompletedProcess) -> str:
    return " ".join(res.stdout.split())


def _events(lake: Path) -> dict[str, int]:
    log = EventLog(Lake(lake))
    return {t: log.count(t) for t in ("llm_call", "study_resolved", "paper_ingested", "human_review_imported",
                                      "calls_replayed", "run_estimated")}


def test_a_second_run_with_nothing_new_makes_no_call_builds_nothing_and_imports_no_dagster(server, lake):
    published = Lake(lake).duckdb_path.stat().st_mtime_ns
    events, requests = _events(lake), server.requests
    res = _run(["run", "demo"], server, lake)
    assert res.returncode == 0, (res.stdout, res.stderr[-3000:])
    imported = _imported(res.stderr)
    assert "peerlake.orchestration.noop_run" in imported  # the listing is read right
    assert not {m for m in imported if m == "dagster" or m.startswith(("dagster.", "dagster_"))}, _why(res)
    assert "dbt" not in imported
    said = _said(res)
    assert "Nothing new for study demo" in said and "Nothing to build" in said, said
    assert "study demo: 1 papers, 2 reviews (0 model calls made, 2 replayed, 0 failed)" in said, said
    assert f"peerlake report --study demo --open # writes {lake / 'reports' / 'demo.html'}" in said, said
    assert server.requests == requests and _events(lake) == events  # no call, no event
    assert Lake(lake).duckdb_path.stat().st_mtime_ns == published  # no build


def test_a_demo_rerun_with_nothing_new_prints_its_summary_without_dagster(server, lake):
    """`peerlake demo` (the same study, run by `make demo`) prints the summary table from the published marts
    (report.summary), not through the Dagster asset's module: its no-op is the run's no-op plus that read."""
    requests = server.requests
    res = _run(["demo"], server, lake)
    assert res.returncode == 0, (res.stdout, res.stderr[-3000:])
    imported = _imported(res.stderr)
    assert "peerlake.report.summary" in imported
    assert not {m for m in imported if m == "dagster" or m.startswith(("dagster.", "dagster_"))}, _why(res)
    said = _said(res)
    assert "AI reviewers of study demo" in said and "Model calls this run: 0 new llm_call events" in said, said
    assert server.requests == requests


def test_a_dry_run_between_two_runs_leaves_the_second_a_no_op(server, lake):
    dry = _run(["run", "demo", "--dry-run"], server, lake)
    assert dry.returncode == 0, (dry.stdout, dry.stderr[-3000:])
    res = _run(["run", "demo"], server, lake)  # its run_estimated is a run record: it waits for a build
    assert res.returncode == 0, (res.stdout, res.stderr[-3000:])
    assert "dagster" not in _imported(res.stderr) and "Nothing new for study demo" in _said(res), _why(res)


def test_a_run_with_one_new_call_goes_the_normal_path(server, lake):
    requests = server.requests
    res = _run(["run", "demo"], server, lake, samples=3)  # a third review of the paper: one new call
    assert res.returncode == 0, (res.stdout, res.stderr[-3000:])
    assert "dagster" in _imported(res.stderr)
    said = _said(res)
    assert "Nothing new" not in said and "1 model calls made, 2 replayed" in said, said
    assert "a Dagster run is needed:" in res.stderr
    assert server.requests == requests + 1

    again = _run(["run", "demo"], server, lake, samples=3)  # and once it is made, nothing is new again
    assert again.returncode == 0, (again.stdout, again.stderr[-3000:])
    assert "dagster" not in _imported(again.stderr) and server.requests == requests + 1, _why(again)


def test_a_run_stopped_or_failed_since_the_last_completed_one_goes_the_normal_path(server, lake):
    """The record of a completed run is dropped when a run starts and written when one completes: a run that
    never completed (stopped, failed, killed) leaves none, whatever the log looks like afterwards."""
    from peerlake.orchestration.noop_run import completed, forget_completed

    forget_completed(Lake(lake), "demo")
    assert completed(Lake(lake), "demo") is None
    res = _run(["run", "demo"], server, lake, samples=3)
    assert res.returncode == 0, (res.stdout, res.stderr[-3000:])
    assert "dagster" in _imported(res.stderr) and "no completed run of this study text" in res.stderr
    assert completed(Lake(lake), "demo") is not None  # written again by the run that completed
