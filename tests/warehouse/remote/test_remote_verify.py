"""`peerlake verify` on a remote lake names what was changed in the bucket behind peerlake's back."""

import json

import pytest

from tests.warehouse.remote.support import machine, paper
from warehouse.blobs import BlobCorrupted
from warehouse.objectstore import split_url
from warehouse.verify import verify_lake


@pytest.fixture
def sealed(tmp_path, s3_lake_url):
    log = machine(tmp_path, "a", s3_lake_url)
    for batch in range(2):
        for i in range(2):
            log.append(paper(log, 10 * batch + i))
        log.seal()
    report = verify_lake(log)
    assert report.ok and not report.warnings, (report.problems, report.warnings)
    return log


def _obj(s3_lake_url, key):
    bucket, prefix = split_url(s3_lake_url)
    return bucket, prefix + key


def test_a_rewritten_segment_a_deleted_manifest_and_a_stray_segment_are_named(sealed, s3_lake_url, s3_server):
    s3 = s3_server.client()
    bucket, manifest_3 = _obj(s3_lake_url, "events/manifests/000000000003.json")
    gone = json.loads(s3.get_object(Bucket=bucket, Key=manifest_3)["Body"].read())["segments"][0]["path"]
    s3.delete_object(Bucket=bucket, Key=manifest_3)  # the first seal's commit
    seg = sealed.chain.refresh()[-1].body["segments"][0]["path"]  # the second seal's segment
    s3.put_object(Bucket=bucket, Key=_obj(s3_lake_url, seg)[1], Body=b"not parquet")
    stray = "events/segments/event_type=paper_ingested/extra.parquet"
    s3.put_object(Bucket=_obj(s3_lake_url, stray)[0], Key=_obj(s3_lake_url, stray)[1], Body=b"x")
    problems = verify_lake(sealed).problems
    assert any(seg in p and "was modified" in p for p in problems)
    assert any("manifest(s) seq 3 missing" in p for p in problems)
    assert any(stray in p and "in no manifest" in p for p in problems)
    assert any(gone in p and "in no manifest" in p for p in problems)  # its commit is gone: dbt must not read it


def test_a_rewritten_blob_is_named_and_never_served(sealed, s3_lake_url, s3_server, tmp_path):
    s3 = s3_server.client()
    (ev, *_) = sealed.iter_events("paper_ingested")
    bucket, key = _obj(s3_lake_url, f"blobs/{ev.pdf_sha256[:2]}/{ev.pdf_sha256}")
    s3.put_object(Bucket=bucket, Key=key, Body=b"forged")
    assert any("does not match its SHA-256" in p for p in verify_lake(sealed).problems)
    with pytest.raises(BlobCorrupted):
        machine(tmp_path, "fresh", s3_lake_url).blobs.get(ev.pdf_sha256)  # no local copy: read remotely
