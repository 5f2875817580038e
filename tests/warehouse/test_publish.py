"""Write, audit, publish on the file system: the candidate starts from the published file, and
publishing swaps the whole file at once."""

import duckdb

from peerlake.warehouse import Lake
from peerlake.warehouse.publish import (
    BUILDING,
    FAILED,
    PUBLISHED,
    candidate_status,
    publish,
    record_gate_failure,
    reset_candidate,
)


def _write(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute("create or replace table reliability_repeatability as select ? as within_paper_sd", [value])


def _read(path):
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("select within_paper_sd from reliability_repeatability").fetchall()


def test_a_first_build_starts_from_nothing_and_forgets_a_failed_candidate(lake):
    _write(lake.candidate_duckdb_path, 9.9)  # left over from a failed build
    lake.candidate_duckdb_path.with_name("peerlake.duckdb.wal").write_bytes(b"left by a killed dbt")
    reset_candidate(lake)
    assert not lake.candidate_duckdb_path.exists()
    assert not lake.candidate_duckdb_path.with_name("peerlake.duckdb.wal").exists()
    assert candidate_status(lake)["state"] == BUILDING


def test_a_build_starts_from_a_copy_of_the_published_file(lake):
    _write(lake.duckdb_path, 1.5)
    _write(lake.candidate_duckdb_path, 9.9)
    reset_candidate(lake)
    assert _read(lake.candidate_duckdb_path) == [(1.5,)]
    _write(lake.candidate_duckdb_path, 2.5)  # dbt writes the candidate, never the published file
    assert _read(lake.duckdb_path) == [(1.5,)]


def test_publish_swaps_the_whole_file_and_open_readers_keep_the_old_one(lake):
    _write(lake.duckdb_path, 1.5)
    reset_candidate(lake)
    _write(lake.candidate_duckdb_path, 2.5)
    reader = duckdb.connect(str(lake.duckdb_path), read_only=True)
    try:
        assert publish(lake) == lake.duckdb_path
        # A query that began before the swap reads the file it opened, whole.
        assert reader.execute("select within_paper_sd from reliability_repeatability").fetchall() == [(1.5,)]
    finally:
        reader.close()
    assert _read(lake.duckdb_path) == [(2.5,)]
    assert sorted(p.name for p in lake.root.glob(".*tmp")) == []  # no temporary file left behind
    assert not lake.candidate_duckdb_path.exists()  # renamed, not copied
    assert candidate_status(lake)["state"] == PUBLISHED
    reset_candidate(lake)  # the next build starts from what was published
    assert _read(lake.candidate_duckdb_path) == [(2.5,)]


def test_a_failed_gate_is_recorded_until_the_next_build(lake):
    reset_candidate(lake)
    record_gate_failure(lake, "gx_ai_review_scores", "gate ai_review_scores: FAIL")
    record_gate_failure(lake, "gx_llm_calls", "gate llm_calls: FAIL")
    status = candidate_status(lake)
    assert status["state"] == FAILED and list(status["failed_gates"]) == ["gx_ai_review_scores", "gx_llm_calls"]
    reset_candidate(lake)
    assert candidate_status(lake)["failed_gates"] == {}


def test_no_status_before_any_build(tmp_path):
    assert candidate_status(Lake(tmp_path)) is None


def test_a_clone_or_copy_of_the_published_file_is_independent(tmp_path):
    from peerlake.warehouse.publish import _clone_or_copy

    src, dst = tmp_path / "a.bin", tmp_path / "b.bin"
    src.write_bytes(b"published" * 1000)
    how = _clone_or_copy(src, dst)  # "clone" on btrfs/XFS, "copy" on ext4
    assert how in ("clone", "copy") and dst.read_bytes() == src.read_bytes()
    with open(dst, "r+b") as fh:
        fh.write(b"candidate")
    assert src.read_bytes() == b"published" * 1000


def test_a_build_resets_the_candidate_once_per_run(lake):
    _write(lake.duckdb_path, 1.5)
    reset_candidate(lake, "run-1")
    _write(lake.candidate_duckdb_path, 2.5)  # stage 1 built something
    reset_candidate(lake, "run-1")  # stage 2 of the same run keeps it
    assert _read(lake.candidate_duckdb_path) == [(2.5,)]
    reset_candidate(lake, "run-2")  # the next build starts again from the published file
    assert _read(lake.candidate_duckdb_path) == [(1.5,)]


def test_the_fingerprint_never_outlives_the_file_it_describes(lake):
    from peerlake.warehouse.publish import published_fingerprint

    _write(lake.duckdb_path, 1.5)
    reset_candidate(lake, "run-1")
    publish(lake, {"events": {"llm_call": "a"}})
    assert published_fingerprint(lake) == {"events": {"llm_call": "a"}}
    reset_candidate(lake, "run-2")
    publish(lake)  # a build that was not planned (the Dagster UI): the next planned build rebuilds all
    assert published_fingerprint(lake) is None


def test_a_damaged_fingerprint_means_rebuild_everything(lake):
    from peerlake.warehouse.publish import published_fingerprint

    path = lake.duckdb_path.with_name("published_build.json")
    for text in ("{not json", "[1, 2]", '"a string"'):
        path.write_text(text)
        assert published_fingerprint(lake) is None, text
