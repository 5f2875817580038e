"""kill -9 of a sealer between its upload and its manifest, and between its manifest and its copies."""

import signal
import subprocess

from peerlake.warehouse.verify import verify_lake
from tests.warehouse.remote.support import PYTHON, REPO, child_env, committed_rows, keys, machine, paper

# Appends three papers and seals; the hook kills the process at the named point of the seal.
KILLED_SEALER = """
import os, signal
from tests.warehouse.remote.support import paper
from peerlake.warehouse import commit
from peerlake.warehouse.log import EventLog

log = EventLog()
for i in range(3):
    log.append(paper(log, i))
setattr({module}, "{hook}", lambda: os.kill(os.getpid(), signal.SIGKILL))
log.seal()
"""


def _killed_seal(home, url, module: str, hook: str) -> None:
    child = subprocess.run([PYTHON, "-c", KILLED_SEALER.format(module=module, hook=hook)], cwd=REPO,
                           env=child_env(home, url), timeout=60)
    assert child.returncode == -signal.SIGKILL


def test_kill_between_upload_and_manifest_commits_nothing_and_the_next_seal_commits_once(tmp_path, s3_lake_url,
                                                                                         s3_server):
    s3 = s3_server.client()
    _killed_seal(tmp_path / "a", s3_lake_url, "commit", "after_staging")
    (orphan,) = keys(s3, s3_lake_url, "events/staging/")  # uploaded, never committed
    assert committed_rows(s3, s3_lake_url, "paper_ingested") == []  # dbt sees nothing of it
    log = machine(tmp_path, "a", s3_lake_url)
    report = verify_lake(log)
    assert report.ok, report.problems
    assert [w for w in report.warnings if orphan in w and "in no manifest" in w]

    log.append(paper(log, 3))  # and one more, in this process's own write-ahead file
    assert log.seal().events_sealed == 4
    rows = committed_rows(s3, s3_lake_url, "paper_ingested")
    assert sorted(r["paper_id"] for r in rows) == ["p0", "p1", "p2", "p3"]
    # The killed range, sealed again, is the same bytes: the same content-addressed staged object, now
    # committed (and cleared from staging) instead of uploaded twice.
    assert keys(s3, s3_lake_url, "events/staging/") == []
    report = verify_lake(log)
    assert report.ok and not report.warnings, (report.problems, report.warnings)


def test_kill_after_the_manifest_is_rolled_forward_by_the_next_reader(tmp_path, s3_lake_url, s3_server):
    s3 = s3_server.client()
    _killed_seal(tmp_path / "a", s3_lake_url, "commit", "after_manifest")
    assert committed_rows(s3, s3_lake_url, "paper_ingested") == []  # committed, not yet copied
    assert len(keys(s3, s3_lake_url, "events/staging/")) == 1
    other = machine(tmp_path, "b", s3_lake_url)  # another machine, which only reads
    assert sorted(e.paper_id for e in other.iter_events("paper_ingested")) == ["p0", "p1", "p2"]
    assert sorted(r["paper_id"] for r in committed_rows(s3, s3_lake_url, "paper_ingested")) == ["p0", "p1", "p2"]
    assert keys(s3, s3_lake_url, "events/staging/") == []
    a = machine(tmp_path, "a", s3_lake_url)
    assert a.seal().events_sealed == 0  # the range is committed: not sealed again
    report = verify_lake(a)
    assert report.ok and not report.warnings, (report.problems, report.warnings)
