"""The inbox sensor and its dynamically partitioned asset, in-process."""

import shutil

from dagster import DagsterInstance, build_sensor_context, materialize

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.orchestration.assets.inbox import inbox_manuscripts, inbox_papers, inbox_sensor
from peerlake.orchestration.resources import LakeResource
from peerlake.warehouse import EventLog


def test_sensor_adds_partitions_and_asset_ingests(lake, tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    monkeypatch.setenv("PEERLAKE_INBOX", str(inbox))
    instance = DagsterInstance.ephemeral()
    assert "no PDFs" in inbox_sensor(build_sensor_context(instance=instance)).skip_message

    shutil.copy(demo_papers()[0], inbox / "paper-a.pdf")
    (inbox / "broken.pdf").write_bytes(b"not a pdf")
    result = inbox_sensor(build_sensor_context(instance=instance))
    assert sorted(r.partition_key for r in result.run_requests) == ["broken", "paper-a"]
    [add] = result.dynamic_partitions_requests
    assert sorted(add.partition_keys) == ["broken", "paper-a"]
    instance.add_dynamic_partitions(inbox_papers.name, list(add.partition_keys))

    lake_res = LakeResource(root=str(lake.root))
    for key in ("paper-a", "broken"):
        assert materialize([inbox_manuscripts], partition_key=key, instance=instance,
                           resources={"lake": lake_res}).success
    log = EventLog(lake)
    assert [e.paper_id for e in log.iter_events("paper_ingested")] == ["paper-a"]
    assert [e.paper_id for e in log.iter_events("ingest_rejected")] == ["broken"]
    log.close()
    # New bytes under the same name: same partition, a new run key.
    before = {r.run_key for r in result.run_requests}
    shutil.copy(demo_papers()[1], inbox / "paper-a.pdf")
    again = inbox_sensor(build_sensor_context(instance=instance))
    assert not again.dynamic_partitions_requests
    assert {r.run_key for r in again.run_requests} - before == {
        r.run_key for r in again.run_requests if r.partition_key == "paper-a"}
