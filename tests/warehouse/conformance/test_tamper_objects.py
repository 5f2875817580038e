"""`verify` names a changed, deleted or forged segment and a missing or forged blob, on a lake on this disk and on
every store (each test tampers through the Store only)."""

import dataclasses

import pytest

from peerlake.warehouse.blobs import BlobCorrupted, blob_key, sha256_hex
from peerlake.warehouse.commit import SEGMENTS
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.tamper import (
    IMAGE,
    REQUEST,
    RESPONSE,
    call,
    chained,
    forged_segment,
    name,
    paper,
    problems,
    read_head,
    sealed_segments,
)


def test_a_clean_lake_verifies_without_warnings(three_seals):
    report = verify_lake(three_seals)
    assert report.ok, report.problems
    assert report.warnings == []
    # 1 genesis + one schema manifest (a segment per event type) + 3 seals
    assert report.checked_manifests == 1 + 1 + 3
    assert [name(k) for k in chained(three_seals.store)] == [f"{seq:012d}.json" for seq in range(1, 6)]
    # paper 0, paper 1: pdf + package each, + the package's image once per package (2 packages named,
    # one distinct): 2*2 + 1 = 5; two calls: request + response each = 4; total 9.
    assert report.checked_blob_refs == 9
    assert report.head.seq == report.checked_manifests  # the chain holds every manifest, seq 1..N
    assert read_head(three_seals.store) == report.head


def test_changed_byte_in_a_segment_is_named(three_seals):
    store = three_seals.store
    seg = sealed_segments(store, "llm_call")[0]
    data = bytearray(store.get(seg))
    data[len(data) // 2] ^= 0x01
    store.put(seg, bytes(data))
    assert any(store.uri(seg) in p and "modified" in p for p in problems(three_seals.lake))


def test_deleted_segment_is_named(three_seals):
    store = three_seals.store
    seg = sealed_segments(store, "paper_ingested")[0]
    store.delete(seg)
    assert any(store.uri(seg) in p and "missing" in p for p in problems(three_seals.lake))


def test_missing_referenced_blobs_are_named(three_seals):
    store = three_seals.store
    response, image = blob_key(sha256_hex(RESPONSE)), blob_key(sha256_hex(IMAGE))
    store.delete(response)
    store.delete(image)
    found = problems(three_seals.lake)
    assert any(store.uri(response) in p and "response_sha256" in p for p in found)
    assert any(store.uri(image) in p and "manuscript package" in p for p in found)


def test_missing_blob_of_an_unsealed_event_is_named(any_lake):
    log = EventLog(any_lake)
    log.append(call(log, "k"))  # in the WAL only
    request = blob_key(sha256_hex(REQUEST))
    log.store.delete(request)
    assert any(log.store.uri(request) in p and "request_sha256" in p for p in problems(any_lake))


def test_a_forged_segment_under_a_name_of_its_own_fails_verify(three_seals):
    store = three_seals.store
    seg = sealed_segments(store, "llm_call")[0]
    forgery = f"{SEGMENTS}event_type=llm_call/forged.parquet"
    store.put(forgery, forged_segment(store.get(seg)))
    assert any(store.uri(forgery) in p and "in no manifest" in p for p in problems(three_seals.lake))


@pytest.mark.parametrize("forged_name", ["/etc/passwd", "../../x", "ab", "A" * 64])
def test_a_forged_blob_name_is_never_a_path(any_lake, forged_name):
    # An event is data from a file someone else wrote: its hash fields must not reach the file system.
    log = EventLog(any_lake)
    log.append(dataclasses.replace(paper(log, 0), pdf_sha256=forged_name))
    log.seal()
    assert not log.blobs.exists(forged_name)
    with pytest.raises(BlobCorrupted, match="not a blob name"):
        log.blobs.get(forged_name)
    assert any("pdf_sha256" in p and "not a blob name" in p for p in problems(any_lake))
