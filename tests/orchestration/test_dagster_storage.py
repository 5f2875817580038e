"""The lake's Dagster instance: the event storage that keeps its SQLite connections open writes the same
files Dagster's own storage reads, commits each event before returning, and the instance file is
peerlake's until a user makes it their own."""

import time

from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from peerlake.orchestration.dagster_storage import OPEN_SHARDS, LakeEventLogStorage
from peerlake.orchestration.runner import DAGSTER_YAML_HEADER, dagster_yaml, write_dagster_yaml


def _entry(run_id: str, i: int) -> EventLogEntry:
    return EventLogEntry(error_info=None, level=20, user_message=f"message {i}", run_id=run_id,
                         timestamp=time.time(), step_key=None, job_name="job", dagster_event=None)


def test_events_are_committed_to_the_files_dagsters_own_storage_reads(tmp_path):
    ours = LakeEventLogStorage(str(tmp_path))
    for i in range(5):
        ours.store_event(_entry("run-a", i))
    # a second reader (another process would be the same) sees every event at once, from the same file
    theirs = SqliteEventLogStorage(str(tmp_path))
    assert [e.user_message for e in theirs.get_logs_for_run("run-a")] == [f"message {i}" for i in range(5)]
    theirs.store_event(_entry("run-a", 5))  # and writes into it alongside the open connections
    ours.store_event(_entry("run-a", 6))
    assert [e.user_message for e in ours.get_logs_for_run("run-a")][-2:] == ["message 5", "message 6"]
    ours.dispose()
    theirs.dispose()


def test_only_a_few_shards_stay_open(tmp_path):
    ours = LakeEventLogStorage(str(tmp_path))
    for n in range(OPEN_SHARDS + 3):
        ours.store_event(_entry(f"run-{n}", 0))
    assert len(ours._engines) == OPEN_SHARDS
    assert len(ours.get_logs_for_run("run-0")) == 1  # an evicted shard opens again when asked for
    ours.dispose()


def test_the_instance_file_follows_the_lake_unless_a_user_owns_it(tmp_path):
    home = tmp_path / "lake" / "dagster"
    write_dagster_yaml(home)
    cfg = home / "dagster.yaml"
    assert cfg.read_text() == dagster_yaml(home) and "LakeEventLogStorage" in cfg.read_text()
    moved = tmp_path / "moved" / "dagster"
    moved.mkdir(parents=True)
    (moved / "dagster.yaml").write_text(cfg.read_text())  # a copied lake names the old folder …
    write_dagster_yaml(moved)
    assert str(moved / "history" / "runs") in (moved / "dagster.yaml").read_text()  # … until peerlake runs there
    assert (moved / "dagster.yaml").read_text().startswith(DAGSTER_YAML_HEADER)
    mine = "telemetry:\n  enabled: false\n"  # a user's own file: left alone
    cfg.write_text(mine)
    write_dagster_yaml(home)
    assert cfg.read_text() == mine
