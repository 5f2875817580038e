"""`peerlake audit check`: re-verify every hash of an evidence bundle, then recompute its row from
the bundle alone — its events written into a fresh lake and sealed, its dbt files run by dbt into a
fresh DuckDB — and compare the recomputed row with the one the bundle records."""

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from metrics.audit.bundle import MANIFEST, fingerprint
from metrics.audit.keys import KeySpec, RowNotFound, find_row
from warehouse import EventLog, Lake
from warehouse.blobs import BlobStore
from warehouse.events import parse_line

REL_TOL = 1e-9


@dataclass
class CheckResult:
    problems: list[str] = field(default_factory=list)  # integrity failures, each naming its file
    fingerprint: str | None = None  # SHA-256 of MANIFEST.json
    recomputed: dict | None = None
    mismatches: list[str] = field(default_factory=list)  # column: recorded vs recomputed
    error: str | None = None  # the recompute could not run (dbt failed, row absent)

    @property
    def ok(self) -> bool:
        return not self.problems and self.error is None and not self.mismatches and self.recomputed is not None


def verify(path: Path) -> tuple[dict[str, bytes], list[str]]:
    """The bundle's files (MANIFEST.json included) and every integrity problem, each naming the file
    it is about."""
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        return {}, [f"{path}: not a readable zip ({exc})"]
    files, problems = {}, []
    with z:
        for info in z.infolist():
            try:
                files[info.filename] = z.read(info)
            except (zipfile.BadZipFile, zlib.error, OSError, ValueError) as exc:  # a changed byte: CRC or inflate
                problems.append(f"{info.filename}: unreadable ({exc})")
    try:
        manifest = json.loads(files[MANIFEST])["files"]
    except (KeyError, ValueError, TypeError):
        return files, [*problems, f"{MANIFEST}: missing or unreadable"]
    for name, sha in sorted(manifest.items()):
        if name not in files:
            if not any(p.startswith(name + ":") for p in problems):
                problems.append(f"{name}: listed in {MANIFEST} but missing from the bundle")
        elif hashlib.sha256(files[name]).hexdigest() != sha:
            problems.append(f"{name}: SHA-256 {hashlib.sha256(files[name]).hexdigest()} differs from "
                            f"{sha} in {MANIFEST}")
    for name in sorted(set(files) - set(manifest) - {MANIFEST}):
        problems.append(f"{name}: not listed in {MANIFEST}")
    for name, data in files.items():  # a blob swapped together with its manifest line
        if name.startswith("blobs/") and hashlib.sha256(data).hexdigest() != name.removeprefix("blobs/"):
            problems.append(f"{name}: content does not hash to its name")
    return files, problems


def _same(a, b) -> bool:
    if a is None or b is None:
        return (a is None or (isinstance(a, float) and math.isnan(a))) and \
               (b is None or (isinstance(b, float) and math.isnan(b)))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0) or a == b
    return str(a) == str(b)


def _dbt_env(lake_root: Path, db: Path, python: Path | None) -> dict[str, str]:
    # The child gets this process's environment (PATH, HOME) with the lake and database pointed into
    # the temporary folder; the orchestrator's target path must not leak in. The bundle's statistics
    # code goes first on PYTHONPATH, ahead of the installed peerlake.
    # A remote lake's segments location too: the child reads the bundle's local lake.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PEERLAKE_DUCKDB_PATH", "DBT_TARGET_PATH", "PEERLAKE_SEGMENTS_URL", "PEERLAKE_LAKE_URL")}
    env.update(PEERLAKE_HOME=str(lake_root), PEERLAKE_DUCKDB_PATH=str(db))
    if python is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(python), *filter(None, [env.get("PYTHONPATH")])])
    return env


def recompute(files: dict[str, bytes], work: Path) -> CheckResult:
    """Rebuild the row in `work` from the bundle's files alone."""
    meta = json.loads(files["row.json"])
    lake = Lake(work / "lake").ensure()
    log = EventLog(lake)
    blobs = BlobStore(lake)
    for name, data in files.items():
        if name.startswith("blobs/"):
            blobs.put(data)
    log.append_many([parse_line(json.loads(line)) for line in files["events.jsonl"].splitlines() if line.strip()])
    log.seal()
    log.close()
    for name, data in files.items():
        if name.startswith(("dbt/", "python/")):
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(data)
    project, python = work / "dbt", work / "python"
    db = work / "recomputed" / "peerlake.duckdb"
    db.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "run", "--select", f"+{meta['mart']}",
         "--project-dir", str(project), "--profiles-dir", str(project), "--target-path", str(work / "target"),
         "--log-path", str(work / "logs")],
        env=_dbt_env(lake.root, db, python if python.is_dir() else None), capture_output=True, text=True,
        timeout=600)
    if proc.returncode != 0:
        return CheckResult(error=f"dbt run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-1000:]}")
    spec = KeySpec(meta["mart"], tuple(meta["key_columns"]), meta["primary_key"])
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = find_row(con, spec, meta["key"])
    except RowNotFound as exc:
        return CheckResult(error=f"the recomputed {meta['mart']} has no such row: {exc}")
    finally:
        con.close()
    recorded = meta["row"]
    out = CheckResult(recomputed=row)
    for col, value in recorded.items():
        got = row.get(col)
        got = got.isoformat() if hasattr(got, "isoformat") else got
        if col not in row:
            out.mismatches.append(f"{col}: recorded {value!r}, absent from the recomputed row")
        elif not _same(value, got if isinstance(got, int | float | bool | type(None)) else str(got)):
            out.mismatches.append(f"{col}: recorded {value!r}, recomputed {got!r}")
    return out


def check_bundle(path: Path, work: Path | None = None) -> CheckResult:
    """Verify, then (only when every hash holds) recompute in `work` or a temporary folder."""
    files, problems = verify(path)
    if problems:
        return CheckResult(problems=problems)
    if work is not None:
        result = recompute(files, work)
    else:
        with tempfile.TemporaryDirectory(prefix="peerlake-audit-") as tmp:
            result = recompute(files, Path(tmp))
    result.fingerprint = fingerprint(files[MANIFEST])
    return result
