"""`verify` names what was changed in the store behind peerlake's back, and the chain's head pointer and the
witness log of heads catch a chain cut back."""

import json

import pytest

from peerlake.warehouse.blobs import BlobCorrupted, blob_key, sha256_hex
from peerlake.warehouse.chain import Link
from peerlake.warehouse.commit import HEAD, manifest_key
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.support import keys, machine, paper, store


@pytest.fixture
def sealed(tmp_path, store_url):
    """Two seals of two papers each after the genesis and schema manifests."""
    log = machine(tmp_path, "a", store_url)
    for batch in range(2):
        for i in range(2):
            log.append(paper(log, 10 * batch + i))
        assert log.seal().head.seq == log.head().seq
    report = verify_lake(log)
    assert report.ok and not report.warnings, (report.problems, report.warnings)
    return log


def test_a_rewritten_segment_a_deleted_manifest_and_a_stray_segment_are_named(sealed, store_url):
    s = store(store_url)
    gone = json.loads(s.get(manifest_key(3)))["segments"][0]["path"]
    s.delete(manifest_key(3))  # the first seal's commit
    seg = sealed.chain.refresh()[-1].body["segments"][0]["path"]  # the second seal's segment
    s.put(seg, b"not parquet")
    stray = "events/segments/event_type=paper_ingested/extra.parquet"
    s.put(stray, b"x")
    problems = verify_lake(sealed).problems
    assert any(seg in p and "was modified" in p for p in problems)
    assert any("manifest(s) seq 3 missing" in p for p in problems)
    assert any(stray in p and "in no manifest" in p for p in problems)
    assert any(gone in p and "in no manifest" in p for p in problems)  # its commit is gone: dbt must not read it


def test_a_rewritten_blob_is_named_and_never_served(sealed, store_url, tmp_path):
    (ev, *_) = sealed.iter_events("paper_ingested")
    store(store_url).put(blob_key(ev.pdf_sha256), b"forged")
    assert any("does not match its SHA-256" in p for p in verify_lake(sealed).problems)
    with pytest.raises(BlobCorrupted):
        machine(tmp_path, "fresh", store_url).blobs.get(ev.pdf_sha256)  # no local copy: read from the store


def test_the_store_holds_the_head_pointer_after_each_seal(sealed, store_url):
    pointer = json.loads(store(store_url).get(HEAD))
    assert (pointer["seq"], pointer["sha256"]) == (sealed.head().seq, sealed.head().sha256)


def test_a_chain_cut_back_is_caught_by_the_pointer_then_by_the_witness(sealed, store_url, tmp_path):
    s = store(store_url)
    newest = sealed.head()
    body = json.loads(s.get(manifest_key(newest.seq)))
    s.delete(manifest_key(newest.seq))
    for seg in body["segments"]:
        s.delete(seg["path"])
    assert not [k for k in keys(store_url, "events/segments/") if k in {seg["path"] for seg in body["segments"]}]
    report = verify_lake(machine(tmp_path, "a", store_url))
    assert any("newest manifest(s) (seq" in p and "were deleted" in p for p in report.problems), report.problems

    # The forger rewrites the pointer too: this machine's witness log still knows the head it moved it to.
    raw = s.get(manifest_key(newest.seq - 1))
    previous = Link(newest.seq - 1, sha256_hex(raw), f"{newest.seq - 1:012d}")
    s.put(HEAD, previous.to_json())
    report = verify_lake(machine(tmp_path, "a", store_url))
    assert any("no longer in the chain" in p and "cut back" in p for p in report.problems), report.problems
    # Another machine has no witness: the cut is invisible there, and verify says it had nothing to check.
    other = verify_lake(machine(tmp_path, "b", store_url))
    assert other.ok and any("no head to check against" in w for w in other.warnings), other.problems
    assert not verify_lake(machine(tmp_path, "b", store_url), extends=newest.sha256).ok
