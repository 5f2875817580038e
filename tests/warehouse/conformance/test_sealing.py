"""Sealing on a shared store: a sealer that loses the race for the next manifest retries at the new head; a
seal that dies between its upload and its manifest commits nothing, and one that dies between its manifest
and its copies is rolled forward by the next reader. (The same with real kill -9 and two processes on S3:
tests/warehouse/remote/.)"""

import pytest

from peerlake.warehouse import commit
from peerlake.warehouse.log import _WalWriter
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.support import committed_rows, keys, machine, paper


class Killed(BaseException):
    """Stands for a kill -9 at the hook: nothing after it runs (not even `except Exception` handlers)."""


def _die():
    raise Killed


def _assert_committed_once(url, ids, log):
    rows = committed_rows(url, "paper_ingested")
    assert sorted(r["event_id"] for r in rows) == sorted(ids)  # all of them, none twice
    assert keys(url, "events/staging/") == []
    report = verify_lake(log)
    assert report.ok, report.problems


def test_a_sealer_that_loses_the_race_retries_at_the_new_head(tmp_path, store_url, monkeypatch):
    a, b = machine(tmp_path, "a", store_url), machine(tmp_path, "b", store_url)
    ids = [a.append(paper(a, i)).event_id for i in range(3)] + [b.append(paper(b, 10 + i)).event_id for i in range(2)]
    calls = []

    def b_commits_first():  # b seals between a's upload and a's manifest: a's seq is taken
        calls.append(1)
        if len(calls) == 1:
            b.seal()

    monkeypatch.setattr(commit, "after_staging", b_commits_first)
    assert a.seal().events_sealed == 3
    assert len(calls) == 3  # a staged, b staged and committed, a staged again and committed at the new head
    assert [m.body.get("wal") for m in a.chain.refresh()][-2:] == [b.wal_path.name, a.wal_path.name]
    _assert_committed_once(store_url, ids, a)


def test_dying_between_upload_and_manifest_commits_nothing_and_the_next_seal_commits_once(tmp_path, store_url,
                                                                                          monkeypatch):
    a = machine(tmp_path, "a", store_url)
    ids = [a.append(paper(a, i)).event_id for i in range(3)]
    monkeypatch.setattr(commit, "after_staging", _die)
    with pytest.raises(Killed):
        a.seal()
    monkeypatch.setattr(commit, "after_staging", None)
    (orphan,) = keys(store_url, "events/staging/")  # uploaded, never committed
    assert committed_rows(store_url, "paper_ingested") == []  # dbt sees nothing of it
    report = verify_lake(a)
    assert report.ok, report.problems
    assert [w for w in report.warnings if orphan in w and "in no manifest" in w]

    # The next process of this machine (its own write-ahead file) appends one more and seals.
    monkeypatch.setattr(_WalWriter, "_by_key", {})
    a = machine(tmp_path, "a", store_url)
    ids.append(a.append(paper(a, 3)).event_id)
    assert a.seal().events_sealed == 4
    # The range sealed again is the same bytes: the same content-addressed staged object, now committed
    # (and cleared from staging) instead of uploaded twice.
    _assert_committed_once(store_url, ids, a)
    assert not verify_lake(a).warnings


def test_dying_after_the_manifest_is_rolled_forward_by_the_next_reader(tmp_path, store_url, monkeypatch):
    a = machine(tmp_path, "a", store_url)
    ids = [a.append(paper(a, i)).event_id for i in range(3)]
    monkeypatch.setattr(commit, "after_manifest", _die)
    with pytest.raises(Killed):
        a.seal()
    monkeypatch.setattr(commit, "after_manifest", None)
    assert committed_rows(store_url, "paper_ingested") == []  # committed, not yet copied
    assert len(keys(store_url, "events/staging/")) == 1
    other = machine(tmp_path, "b", store_url)  # another machine, which only reads
    assert sorted(e.paper_id for e in other.iter_events("paper_ingested")) == ["p0", "p1", "p2"]
    assert sorted(r["paper_id"] for r in committed_rows(store_url, "paper_ingested")) == ["p0", "p1", "p2"]
    assert a.seal().events_sealed == 0  # the range is committed: not sealed again
    _assert_committed_once(store_url, ids, a)
    assert not verify_lake(a).warnings
