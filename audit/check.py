"""`peerlake audit check`: re-verify every hash of an evidence bundle, check its names and events as
data, then recompute its row from the bundle's events alone — written into a fresh lake and sealed,
run by the INSTALLED dbt project and statistics into a fresh DuckDB — and compare the recomputed row
with the one the bundle records.

Nothing from the zip is ever run or written by its own name: a bundle is what people exchange, and
checking someone else's must not run their code. Its dbt/ and python/ files are evidence, compared
file by file with the installed ones; its code record (row.json "code") is compared with the
installed code's hashes (audit.code)."""

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

from peerlake.audit.bundle import MANIFEST, fingerprint
from peerlake.audit.code import PROJECT_DIR, ROOT, code_version
from peerlake.audit.keys import RowNotFound, find_row, key_spec
from peerlake.audit.lineage import lineage
from peerlake.audit.untrusted import member_problems, parse_events, row_problems
from peerlake.warehouse import EventLog, Lake, settings
from peerlake.warehouse.blobs import BlobStore

REL_TOL = 1e-9
CODE_PARTS = (("dbt project", "dbt_project_sha256"), ("statistics", "statistics_sha256"))


@dataclass
class CheckResult:
    problems: list[str] = field(default_factory=list)  # integrity failures, each naming its file
    fingerprint: str | None = None  # SHA-256 of MANIFEST.json
    code: str | None = None  # how the bundle's code record compares with the installed code
    code_diffs: list[str] = field(default_factory=list)  # the bundle's dbt/ and python/ files unlike yours
    recomputed: dict | None = None
    mismatches: list[str] = field(default_factory=list)  # column: recorded vs recomputed
    error: str | None = None  # the recompute could not run (dbt failed, row absent)

    @property
    def ok(self) -> bool:
        return not self.problems and self.error is None and not self.mismatches and self.recomputed is not None


def verify(path: Path) -> tuple[dict[str, bytes], list[str]]:
    """The bundle's files (MANIFEST.json included) and every integrity problem, each naming the file
    it is about. A bad member name fails before any member is read."""
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        return {}, [f"{path}: not a readable zip ({exc})"]
    files, problems = {}, []
    with z:
        if bad := member_problems(z.infolist()):
            return {}, bad
        # zipfile never inflates a member past the size its header declares, so the sum bounds memory
        limit = settings.bundle_max_mb() * 2**20
        if (total := sum(i.file_size for i in z.infolist())) > limit:
            return {}, [f"{path}: its members inflate to {total / 2**20:,.0f} MB, more than "
                        f"PEERLAKE_BUNDLE_MAX_MB={limit // 2**20}; nothing read (raise it if you trust the size)"]
        for info in z.infolist():
            try:
                files[info.filename] = z.read(info)
            except (zipfile.BadZipFile, zlib.error, OSError, ValueError) as exc:  # a changed byte: CRC or inflate
                problems.append(f"{info.filename}: unreadable ({exc})")
    try:
        manifest = json.loads(files[MANIFEST])["files"]
    except (KeyError, ValueError, TypeError):
        manifest = None
    if not isinstance(manifest, dict) or not all(isinstance(v, str) for v in manifest.values()):
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


def _installed_file(root: Path, rel: str) -> Path | None:
    """The installed counterpart of a bundle path, never outside `root` (the name is the bundle's)."""
    path = (root / rel).resolve()
    return path if path.is_relative_to(root.resolve()) else None


def compare_code(meta: dict, files: dict[str, bytes], project_dir: Path = PROJECT_DIR) -> tuple[str, list[str]]:
    """One line on the bundle's code record against the installed code, and each of the bundle's
    dbt/ and python/ files that differs from the installed file of that name."""
    diffs = []
    for name, data in sorted(files.items()):
        for prefix, root, what in (("dbt/", project_dir, "dbt project"), ("python/", ROOT, "peerlake")):
            if name.startswith(prefix):
                path = _installed_file(root, name.removeprefix(prefix))
                if path is None or not path.is_file():
                    diffs.append(f"{name}: not in your installed {what}")
                elif path.read_bytes() != data:
                    diffs.append(f"{name} differs from the installed file {path}")
    mine, theirs = code_version(project_dir), meta.get("code")
    yours = f"peerlake {mine['peerlake_version']}, " + ", ".join(f"{part} {mine[k][:12]}" for part, k in CODE_PARTS)
    if theirs is None:
        line = (f"the bundle records no code version (format {meta.get('format', 1)}, older than the record): "
                f"recomputed with your code ({yours})")
    elif differ := [f"{part} {str(theirs.get(k))[:12]}, yours {mine[k][:12]}" for part, k in CODE_PARTS
                    if theirs.get(k) != mine[k]]:
        line = (f"made with other code ({'; '.join(differ)}; peerlake {theirs.get('peerlake_version')}, yours "
                f"{mine['peerlake_version']}): recomputed with yours")
    elif diffs:  # a record that claims your code while the files say otherwise
        line = f"made with the same code as yours by its own record ({yours}), but its files differ (below): " \
               "recomputed with yours"
    else:
        line = f"made with the same code as yours ({yours}): recomputed with it"
    return line, diffs


def _dbt_env(lake_root: Path, db: Path) -> dict[str, str]:
    # No provider keys or cloud credentials (the child reads a local temporary lake); the lake and the
    # database point into the temporary folder, and the orchestrator's target path must not leak in.
    # The installed statistics go first on PYTHONPATH: the child imports the code code_version hashed.
    env = {k: v for k, v in settings.child_env(object_store=False).items()
           if k not in ("PEERLAKE_DUCKDB_PATH", "DBT_TARGET_PATH", "PEERLAKE_SEGMENTS_URL", "PEERLAKE_LAKE_URL")}
    env.update(PEERLAKE_HOME=str(lake_root), PEERLAKE_DUCKDB_PATH=str(db),
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]))
    return env


def recompute(files: dict[str, bytes], work: Path, events: list, project_dir: Path = PROJECT_DIR) -> CheckResult:
    """Rebuild the row in `work` from the bundle's (checked) events and blobs with the installed code."""
    meta = json.loads(files["row.json"])
    lake = Lake(work / "lake").ensure()
    log = EventLog(lake)
    blobs = BlobStore(lake)
    for name, data in files.items():
        if name.startswith("blobs/"):
            blobs.put(data)  # stored under its own hash, never under the bundle's name
    log.append_many(events)
    log.seal()
    log.close()
    db = work / "recomputed" / "peerlake.duckdb"
    db.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "run", "--select", f"+{meta['mart']}",
         "--project-dir", str(project_dir), "--profiles-dir", str(project_dir), "--target-path",
         str(work / "target"), "--log-path", str(work / "logs")],
        env=_dbt_env(lake.root, db), cwd=work, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return CheckResult(error=f"dbt run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-1000:]}")
    # the key's columns as the installed project declares them, never as the bundle says
    con = duckdb.connect(str(db), read_only=True, config={"enable_external_access": False})
    try:
        chain = lineage(json.loads((work / "target" / "manifest.json").read_text()), meta["mart"])
        row = find_row(con, key_spec(meta["mart"], chain.models[0].unique_columns), meta["key"])
    except (RowNotFound, KeyError) as exc:
        return CheckResult(error=f"the recomputed {meta['mart']} has no such row: {exc.args[0] if exc.args else exc}")
    finally:
        con.close()
    out = CheckResult(recomputed=row)
    for col, value in meta["row"].items():
        got = row.get(col)
        got = got.isoformat() if hasattr(got, "isoformat") else got
        if col not in row:
            out.mismatches.append(f"{col}: recorded {value!r}, absent from the recomputed row")
        elif not _same(value, got if isinstance(got, int | float | bool | type(None)) else str(got)):
            out.mismatches.append(f"{col}: recorded {value!r}, recomputed {got!r}")
    return out


def data_problems(files: dict[str, bytes], project_dir: Path = PROJECT_DIR) -> tuple[dict, list, list[str]]:
    """row.json, the parsed events and every problem with either (verify has checked the blobs: each
    hashes to its name)."""
    try:
        meta = json.loads(files["row.json"])
    except (KeyError, ValueError):
        return {}, [], ["row.json: missing or not JSON"]
    problems = row_problems(meta)
    models = (project_dir / "models").rglob(f"{meta['mart']}.*") if not problems else ()
    if not problems and not any(p.suffix in (".sql", ".py") for p in models):
        problems.append(f"row.json: mart {meta['mart']!r} is not a model of your installed dbt project")
    events, bad = parse_events(files.get("events.jsonl", b""))
    return meta, events, problems + bad


def check_bundle(path: Path, work: Path | None = None, project_dir: Path = PROJECT_DIR) -> CheckResult:
    """Verify, check the data, then (only when all of it holds) recompute in `work` or a temporary
    folder with the dbt project in `project_dir` (the installed one)."""
    files, problems = verify(path)
    if problems:
        return CheckResult(problems=problems)
    meta, events, problems = data_problems(files, project_dir)
    if problems:
        return CheckResult(problems=problems)
    code, diffs = compare_code(meta, files, project_dir)
    if work is not None:
        result = recompute(files, work, events, project_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="peerlake-audit-") as tmp:
            result = recompute(files, Path(tmp), events, project_dir)
    result.fingerprint, result.code, result.code_diffs = fingerprint(files[MANIFEST]), code, diffs
    return result
