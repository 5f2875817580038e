"""The head of a remote lake's chain: a pointer in the bucket, and each machine's witness log of the heads it
moved it to. Without them, deleting the newest manifest (and its segments) from the bucket shows nowhere."""

import json

import pytest

from tests.warehouse.remote.support import keys, machine, paper
from warehouse.blobs import sha256_hex
from warehouse.chain import Link
from warehouse.objectstore import split_url
from warehouse.remote_chain import HEAD, manifest_key
from warehouse.verify import verify_lake


@pytest.fixture
def sealed(tmp_path, s3_lake_url):
    log = machine(tmp_path, "a", s3_lake_url)
    for batch in range(2):
        log.append(paper(log, batch))
        assert log.seal().head.seq == log.head().seq
    report = verify_lake(log)
    assert report.ok and not report.warnings, (report.problems, report.warnings)
    return log


def test_the_bucket_holds_the_head_pointer_after_each_seal(sealed, s3_lake_url, s3_server):
    bucket, prefix = split_url(s3_lake_url)
    pointer = json.loads(s3_server.client().get_object(Bucket=bucket, Key=prefix + HEAD)["Body"].read())
    assert (pointer["seq"], pointer["sha256"]) == (sealed.head().seq, sealed.head().sha256)


def test_a_chain_cut_back_in_the_bucket_is_caught_by_the_pointer_then_by_the_witness(sealed, s3_lake_url,
                                                                                   s3_server, tmp_path):
    s3 = s3_server.client()
    bucket, prefix = split_url(s3_lake_url)
    newest = sealed.head()
    body = json.loads(s3.get_object(Bucket=bucket, Key=prefix + manifest_key(newest.seq))["Body"].read())
    s3.delete_object(Bucket=bucket, Key=prefix + manifest_key(newest.seq))
    for seg in body["segments"]:
        s3.delete_object(Bucket=bucket, Key=prefix + seg["path"])
    assert not [k for k in keys(s3, s3_lake_url, "events/segments/") if k in {s["path"] for s in body["segments"]}]
    report = verify_lake(machine(tmp_path, "a", s3_lake_url))
    assert any("newest manifest(s) (seq" in p and "were deleted" in p for p in report.problems), report.problems

    # The forger rewrites the pointer too: this machine's witness log still knows the head it moved it to.
    raw = s3.get_object(Bucket=bucket, Key=prefix + manifest_key(newest.seq - 1))["Body"].read()
    previous = Link(newest.seq - 1, sha256_hex(raw), f"{newest.seq - 1:012d}")
    s3.put_object(Bucket=bucket, Key=prefix + HEAD, Body=previous.to_json())
    report = verify_lake(machine(tmp_path, "a", s3_lake_url))
    assert any("no longer in the chain" in p and "cut back" in p for p in report.problems), report.problems
    # Another machine has no witness: the cut is invisible there, and verify says it had nothing to check.
    other = verify_lake(machine(tmp_path, "b", s3_lake_url))
    assert other.ok and any("no head to check against" in w for w in other.warnings), other.problems
    assert not verify_lake(machine(tmp_path, "b", s3_lake_url), extends=newest.sha256).ok
