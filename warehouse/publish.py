"""Write, audit, publish: dbt writes a candidate DuckDB file, the gates audit it, and only an audited
candidate replaces the published file that `peerlake query`, the summary and the report read.

- `Lake.duckdb_path` (`<lake>/peerlake.duckdb`) is published. Only `publish()` writes it, by renaming
  the audited candidate over the old file, so a reader sees the old marts or the new ones, never a mix;
  a reader that holds the old file open keeps reading it undisturbed. After a publish there is no
  candidate file: the published file is what the last build made.
- `Lake.candidate_duckdb_path` (`<lake>/candidate/peerlake.duckdb`) is what dbt builds into.
  `reset_candidate()` starts each build from a copy of the published file (or from nothing), so a
  failed candidate never leaks into the next build; until then it stays for inspection.
- `<lake>/candidate/status.json` says what happened to the candidate (building, which gates failed,
  published), so the CLI can tell a user why nothing is published.
"""

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from peerlake.warehouse.fsutil import atomic_write, fsync_dir
from peerlake.warehouse.lake import Lake

BUILDING, FAILED, PUBLISHED = "building", "failed", "published"


def _wal(db: Path) -> Path:
    return db.with_name(db.name + ".wal")


def _status_path(lake: Lake) -> Path:
    return lake.candidate_duckdb_path.parent / "status.json"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def candidate_status(lake: Lake) -> dict | None:
    """{"state", "started_at", "failed_gates": {gate: summary}, "published_at"?}, or None before any build."""
    try:
        return json.loads(_status_path(lake).read_text())
    except FileNotFoundError:
        return None


def _write_status(lake: Lake, status: dict) -> None:
    atomic_write(_status_path(lake), json.dumps(status, indent=1).encode())


def _rename_synced(src: Path, dst: Path) -> None:
    """fsync `src`, rename it over `dst`, fsync both folders."""
    with open(src, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(src, dst)
    fsync_dir(dst.parent)
    if src.parent != dst.parent:
        fsync_dir(src.parent)


FICLONE = 0x40049409  # linux/fs.h: _IOW(0x94, 9, int)


def _clone_or_copy(src: Path, dst: Path) -> str:
    """A reflink where the file system has them (btrfs, XFS, bcachefs: the candidate shares the published
    file's blocks until dbt rewrites some, so a 2 GB lake's build does not copy 2 GB), else a copy."""
    import fcntl

    with open(src, "rb") as fin, open(dst, "wb") as fout:
        try:
            fcntl.ioctl(fout.fileno(), FICLONE, fin.fileno())
            return "clone"
        except OSError:
            pass
    shutil.copyfile(src, dst)
    return "copy"


def _copy_synced(src: Path, dst: Path) -> str:
    """Clone or copy to a temporary name beside `dst`, then a synced rename over `dst`."""
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    how = _clone_or_copy(src, tmp)
    _rename_synced(tmp, dst)
    return how


def _fingerprint_path(lake: Lake) -> Path:
    return lake.duckdb_path.with_name("published_build.json")


def published_fingerprint(lake: Lake) -> dict | None:
    """What the published file was built from (orchestration.build_plan), or None: then a build rebuilds
    everything. Written after the file is in place and removed before it is replaced, so it never claims
    more than the file holds."""
    try:
        body = json.loads(_fingerprint_path(lake).read_text())
    except (OSError, ValueError):  # missing or damaged: rebuild everything, which is always right
        return None
    return body if isinstance(body, dict) else None


def reset_candidate(lake: Lake, run_id: str | None = None) -> Path:
    """Make the candidate a copy of the published file (none yet: no candidate) before dbt runs. With a
    run id, once per run: the first dbt step of a build resets, the next one builds on what it made."""
    candidate = lake.candidate_duckdb_path
    candidate.parent.mkdir(parents=True, exist_ok=True)
    status = candidate_status(lake)
    if run_id is not None and status and status.get("state") == BUILDING and status.get("run_id") == run_id:
        return candidate
    # A dbt run killed mid-build leaves a write-ahead log; DuckDB would replay it onto the fresh
    # copy and resurrect the failed build's tables.
    _wal(candidate).unlink(missing_ok=True)
    if lake.duckdb_path.is_file():
        _copy_synced(lake.duckdb_path, candidate)
    else:
        candidate.unlink(missing_ok=True)
    _write_status(lake, {"state": BUILDING, "started_at": _now(), "failed_gates": {}, "run_id": run_id})
    return candidate


def record_gate_failure(lake: Lake, gate: str, summary: str, relation: str | None = None) -> None:
    """Note a failed gate on the candidate, and the relation it checks when the gate's name does not say
    (a dbt test). Gates run one at a time (they share the DuckDB concurrency tag), so this
    read-modify-write needs no lock."""
    status = candidate_status(lake) or {"started_at": None, "failed_gates": {}}
    status["state"] = FAILED
    status.setdefault("failed_gates", {})[gate] = summary
    if relation:
        status.setdefault("failed_relations", {})[gate] = relation
    _write_status(lake, status)


def publish(lake: Lake, fingerprint: dict | None = None) -> Path:
    """Atomically replace the published file with the (audited) candidate; return its path. `fingerprint`
    says what the candidate was built from (orchestration.build_plan); without one the next build
    rebuilds everything."""
    import duckdb

    candidate, published = lake.candidate_duckdb_path, lake.duckdb_path
    if not candidate.is_file():
        raise FileNotFoundError(f"no candidate at {candidate} to publish (run the dbt build first)")
    # Fold the write-ahead log into the file: the copy below takes the file alone.
    con = duckdb.connect(str(candidate))
    try:
        con.execute("checkpoint")
    finally:
        con.close()
    if _wal(candidate).exists():
        raise RuntimeError(f"{_wal(candidate)} survived a checkpoint; another process has the candidate open")
    # Readers open the published file read-only and never write a log; a leftover one comes from
    # the days when dbt wrote this file directly and would be replayed onto the new file.
    _wal(published).unlink(missing_ok=True)
    # The candidate itself becomes the published file (one rename, same file system): no second copy
    # of a file that is gigabytes at a million events. The next build copies it back (reset_candidate).
    _fingerprint_path(lake).unlink(missing_ok=True)  # a crash from here on leaves no fingerprint: rebuild all
    _rename_synced(candidate, published)
    if fingerprint is not None:
        atomic_write(_fingerprint_path(lake), json.dumps(fingerprint, sort_keys=True).encode())
    status = candidate_status(lake) or {"started_at": None}
    _write_status(lake, {**status, "state": PUBLISHED, "failed_gates": {}, "failed_relations": {},
                         "published_at": _now()})
    return published
