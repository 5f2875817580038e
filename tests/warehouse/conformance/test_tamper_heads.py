"""The chain checked against its heads (issue 23 §4): a forger who re-links the chain and rewrites the head pointer
is caught by this machine's witness log or a head published earlier, on a lake on this disk and on every store
(the store is tampered with through its Store only; the witness log and the write-ahead files are this
machine's files)."""

from pathlib import PurePosixPath

import pytest
from ulid import ULID

from peerlake.warehouse import heads
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.chain import Link
from peerlake.warehouse.commit import HEAD
from peerlake.warehouse.events import to_json_line
from peerlake.warehouse.lake import Lake
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.tamper import (
    body,
    call,
    chained,
    forged_segment,
    range_manifests,
    read_head,
    rechain,
)


@pytest.fixture
def two_writers(three_seals) -> EventLog:
    """`three_seals`, then a second writer's WAL (another process) sealed in its own manifest, the newest."""
    other = three_seals.lake.wal_dir / f"{ULID()}-otherhost-4242.jsonl"
    other.write_bytes(to_json_line(call(three_seals, "k9")))
    three_seals.seal()
    return three_seals


def _assert_caught_with_a_head_and_warned_without(lake: Lake, tamper, published: str) -> None:
    """Tamper; with the witness log, verify fails naming it and `--head` fails too; without either it passes
    (the chain agrees with itself) but warns that it had no head to check against."""
    tamper()
    report = verify_lake(EventLog(lake))
    assert any(str(lake.head_witness) in p and "no longer in the chain" in p for p in report.problems), report.problems
    assert not verify_lake(EventLog(lake), extends=published).ok
    witness = lake.head_witness.read_bytes()
    lake.head_witness.unlink()
    report = verify_lake(EventLog(lake))
    assert any("no head to check against" in w for w in report.warnings)
    assert report.ok, report.problems  # what cannot be detected without a head, as the docs say
    lake.head_witness.write_bytes(witness)


def test_a_rewritten_newest_manifest_with_its_head_is_caught_against_a_recorded_head(three_seals):
    store = three_seals.store
    newest = range_manifests(store)[-1]
    published = verify_lake(three_seals).head.sha256

    def tamper():
        rechain(store, lambda bodies, stems: bodies[-1].update(events=7))
        assert read_head(store).sha256 != published  # the head pointer was rewritten to match

    _assert_caught_with_a_head_and_warned_without(three_seals.lake, tamper, published)
    assert store.exists(newest)


def test_a_re_chained_middle_manifest_is_caught_against_a_recorded_head(three_seals):
    store = three_seals.store
    _, middle, _ = range_manifests(store)
    published = verify_lake(three_seals).head.sha256

    def tamper():
        def forge(bodies, stems):
            # A consistent forgery: a segment changed AND the hash its manifest records, then the chain re-linked.
            b = bodies[stems.index(PurePosixPath(middle).stem)]
            seg = b["segments"][0]["path"]
            store.put(seg, forged_segment(store.get(seg)))  # a valid segment, other rows
            b["segments"] = [{**b["segments"][0], "sha256": sha256_hex(store.get(seg))}, *b["segments"][1:]]
        rechain(store, forge)

    _assert_caught_with_a_head_and_warned_without(three_seals.lake, tamper, published)


def test_two_reordered_and_re_linked_manifests_are_caught_against_a_recorded_head(two_writers):
    published = verify_lake(two_writers).head.sha256

    def tamper():
        def swap(bodies, stems):
            # The last range of the first writer and the second writer's range change places in the chain.
            # Numbered manifests are named by seq, so each keeps its name and takes the other's record.
            a, b = len(bodies) - 2, len(bodies) - 1
            bodies[a]["seq"], bodies[b]["seq"] = bodies[b]["seq"], bodies[a]["seq"]
            bodies[a], bodies[b] = bodies[b], bodies[a]
        rechain(two_writers.store, swap)

    _assert_caught_with_a_head_and_warned_without(two_writers.lake, tamper, published)


def test_a_chain_cut_back_by_one_with_its_segments_and_wal_is_caught_against_a_recorded_head(two_writers):
    lake, store = two_writers.lake, two_writers.store
    published = verify_lake(two_writers).head.sha256
    newest = chained(store)[-1]
    cut = body(store, newest)
    assert "otherhost" in cut["wal"]  # the second writer's only range: no hole left in any other WAL

    def tamper():
        store.delete(newest)
        for seg in cut["segments"]:
            store.delete(seg["path"])
        (lake.wal_dir / cut["wal"]).unlink()
        tip = chained(store)[-1]
        raw = store.get(tip)
        store.put(HEAD, Link(body(store, tip)["seq"], sha256_hex(raw), PurePosixPath(tip).stem).to_json())
        assert verify_lake(EventLog(lake)).head.seq == cut["seq"] - 1

    _assert_caught_with_a_head_and_warned_without(lake, tamper, published)


def test_a_clean_lake_has_a_witness_of_every_head_it_moved_to(three_seals):
    recorded, bad = heads.read(three_seals.lake)
    report = verify_lake(three_seals)
    assert bad == [] and recorded[-1].sha256 == report.head.sha256 == three_seals.head().sha256
    assert [r.seq for r in recorded] == sorted({r.seq for r in recorded})  # one line per head, in order
