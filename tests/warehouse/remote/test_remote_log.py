"""S3 only: a missing bucket is named with its fix. (Sealing, reading, duplicates and replay across machines
run on every store: tests/warehouse/conformance/.)"""

import pytest

from peerlake.warehouse.stores import ObjectStoreError
from tests.warehouse.remote.support import machine, paper


def test_a_missing_bucket_fails_saying_which_and_what_to_do(tmp_path, s3_lake_url):
    missing = s3_lake_url.replace("s3://", "s3://gone-").split("/")[2]
    with pytest.raises(ObjectStoreError, match=f"bucket '{missing}' does not exist; create it"):
        machine(tmp_path, "a", f"s3://{missing}/lake")
    log = machine(tmp_path, "b", s3_lake_url)
    log.store.bucket = missing  # the bucket vanishes under a running writer: no blob, so no event
    with pytest.raises(ObjectStoreError, match=missing):
        log.append(paper(log, 1))
    assert log.wal_files() == []  # paper() failed on its first blob: nothing was appended
