"""`verify` names a deleted, rewritten or reordered manifest by the hash chain, the write-ahead ranges and the
head pointer, and checks a head published earlier, on a lake on this disk and on every store (each test tampers
through the Store only)."""

import json
from pathlib import PurePosixPath

from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.commit import MANIFESTS, NumberedChain
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.tamper import (
    body,
    call,
    chained,
    name,
    paper,
    problems,
    range_manifests,
    range_stem,
)


def test_deleted_middle_manifest_is_named_by_the_chain_and_the_wal_range(three_seals):
    store = three_seals.store
    first, middle, last = range_manifests(store)
    stem = range_stem(store, middle)
    store.delete(middle)
    found = problems(three_seals.lake)
    # The chain: a gap between its neighbours. The WAL: a hole named after the range.
    assert any("missing between" in p and name(first) in p and name(last) in p for p in found)
    assert any(f"{stem}.json" in p and "was deleted" in p for p in found)
    # A seal afterwards does not heal it: the gap stays in the chain.
    EventLog(three_seals.lake).seal()
    assert any("missing between" in p for p in problems(three_seals.lake))


def test_deleted_newest_manifest_is_named_by_the_head(three_seals):
    store = three_seals.store
    newest = range_manifests(store)[-1]
    store.delete(newest)
    assert any(PurePosixPath(newest).stem in p and "newest manifest" in p for p in problems(three_seals.lake))
    # A seal afterwards does not hide it: a manifest committed again at that seq is not the one the head
    # pointer and the witness log recorded.
    EventLog(three_seals.lake).seal()
    assert any("no longer in the chain" in p for p in problems(three_seals.lake))


def test_deleted_schema_manifest_is_a_gap_even_after_start_up_rewrites_it(three_seals):
    store = three_seals.store
    (schema,) = [k for k in chained(store) if body(store, k).get("schema")]
    store.delete(schema)
    # A process starting afterwards re-creates the schema segments' manifest at a new seq; the old seq stays missing.
    NumberedChain._by_key.clear()  # (this process's view of the chain still holds the deleted manifest)
    EventLog(three_seals.lake)
    assert any(body(store, k).get("schema") for k in chained(store))
    assert any("missing between" in p for p in problems(three_seals.lake))


def test_rewritten_manifest_is_named_by_its_successor(three_seals):
    # A consistent forgery: change a segment AND the hash its manifest records; the file checks pass,
    # the chain does not.
    store = three_seals.store
    _, middle, _ = range_manifests(store)
    b = body(store, middle)
    seg = b["segments"][0]["path"]
    store.put(seg, store.get(seg) + b"forged")
    b["segments"][0]["sha256"] = sha256_hex(store.get(seg))
    store.put(middle, json.dumps(b, indent=1).encode())
    found = problems(three_seals.lake)
    assert any(f"{name(middle)} was rewritten" in p for p in found)
    assert not any("modified" in p for p in found)  # the forgery fooled the per-file check


def test_rewritten_newest_manifest_is_named_by_the_head(three_seals):
    store = three_seals.store
    newest = range_manifests(store)[-1]
    store.put(newest, store.get(newest).replace(b'"events": 1', b'"events": 2'))
    found = problems(three_seals.lake)
    assert any(name(newest) in p and "not the one the chain head recorded" in p for p in found)


def test_reordered_manifests_are_named(three_seals):
    store = three_seals.store
    first, middle, _ = range_manifests(store)
    a, b = store.get(first), store.get(middle)
    store.put(first, b)
    store.put(middle, a)
    found = problems(three_seals.lake)
    assert any(name(first) in p and "swapped or reordered" in p for p in found)
    assert any(name(middle) in p and "swapped or reordered" in p for p in found)


def test_a_head_published_earlier_is_extended_and_a_forged_one_is_not(any_lake):
    log = EventLog(any_lake)
    log.append(paper(log, 0))
    log.seal()
    published = verify_lake(log).head
    log.append(call(log, "k"))
    log.seal()
    later = verify_lake(log, extends=published.sha256)
    assert later.ok and later.extends_seq == published.seq
    assert later.head.seq == published.seq + 1  # one more seal, one more manifest
    forged = "0" * 64
    report = verify_lake(log, extends=forged)
    assert not report.ok and any(forged in p and "does not extend" in p for p in report.problems)


def test_a_published_head_fails_once_the_log_is_cut_back(any_lake):
    log = EventLog(any_lake)
    log.append(paper(log, 0))
    log.seal()
    published = verify_lake(log).head
    log.store.delete(f"{MANIFESTS}{published.manifest}.json")
    report = verify_lake(EventLog(any_lake), extends=published.sha256)
    assert any("does not extend" in p for p in report.problems)


def test_a_crash_between_manifest_and_head_is_a_warning_and_the_next_seal_repairs_it(any_lake, monkeypatch):
    log = EventLog(any_lake)
    log.append(paper(log, 0))
    monkeypatch.setattr(NumberedChain, "publish_head", lambda self: None)  # the process dies before moving the head
    log.seal()
    monkeypatch.undo()
    report = verify_lake(log)
    assert report.ok, report.problems
    assert any("past the chain head" in w for w in report.warnings)
    log.seal()  # nothing new to seal: adopts the manifest and moves the head
    report = verify_lake(log)
    assert report.ok and report.warnings == []
