"""The published marts of the last N builds, kept cheaply so `peerlake diff --build` can say what a build changed.

- After a publish, `keep_build()` records the published file (`Lake.duckdb_path`): each mart sorted by
  its key and cut into content-defined chunks, a new chunk starting at every row whose key's hash ends in
  12 zero bits (about 4,096 rows a chunk). A chunk is a Parquet file named by the SHA-256 of its schema
  and its rows' hashes (`<lake>/builds/chunks/<sha256>.parquet`), written only when no build has it yet.
  So an unchanged mart costs no new file, and rows added in one place of the key order (new events'
  ULIDs, a new study's `study|…` keys) rewrite only the chunks they fall into, not the mart.
- `<lake>/builds/<build_id>.json` names the chunks, written after them: {build_id, published_at,
  chain_head_seq, file, marts: {name: {columns: [[name, type]], key, chunks, rows}}}. Build ids count
  up from 1; `file` is the published file's size and mtime, so `current()` can tell whether the newest
  record is the file being served.
- Pruning keeps the newest $PEERLAKE_KEEP_BUILDS records (default 5; 0 keeps none and records none),
  then deletes every chunk no record names.
- A snapshot is a convenience, never a gate: `keep_build()` logs any error and returns None.

The DuckDB file is always on this machine (a lake on object storage keeps only events and blobs there),
so the snapshots are too.
"""

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from peerlake.warehouse import settings
from peerlake.warehouse.fsutil import atomic_write, file_lock, fsync_dir
from peerlake.warehouse.lake import Lake

log = logging.getLogger(__name__)

BOUNDARY_MASK = (1 << 12) - 1  # a chunk starts where the key's hash ends in 12 zero bits: ~4,096 rows a chunk
NULL_TYPE = '"NULL"'  # DuckDB's type of a column every row of which is null (a Python model's empty frame)
KeyColumns = Callable[[str, Sequence[str]], Sequence[str]]


class BuildUnknown(LookupError):
    """A build id that no kept record has; the message lists the ones kept."""


def builds_dir(lake: Lake) -> Path:
    return lake.root / "builds"


def chunks_dir(lake: Lake) -> Path:
    return builds_dir(lake) / "chunks"


def chunk_path(lake: Lake, sha: str) -> Path:
    return chunks_dir(lake) / f"{sha}.parquet"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def default_key(mart: str, columns: Sequence[str]) -> list[str]:
    """The first column ending in `_id` (the marts' own key comes first by convention), else every column."""
    return next(([c] for c in columns if c.endswith("_id")), list(columns))


def file_signature(path: Path) -> dict | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def records(lake: Lake) -> list[dict]:
    """Every kept build record, oldest first (a damaged one is skipped)."""
    out = []
    for path in builds_dir(lake).glob("*.json"):
        if not path.stem.isdigit():
            continue
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            log.warning("build record %s is unreadable; skipped", path)
    return sorted(out, key=lambda r: int(r["build_id"]))


def current(lake: Lake, kept: list[dict] | None = None) -> dict | None:
    """The newest record if it is of the file published now (else the last snapshot failed or was off)."""
    kept = records(lake) if kept is None else kept
    if kept and kept[-1].get("file") == file_signature(lake.duckdb_path):
        return kept[-1]
    return None


def resolve(lake: Lake, which: str) -> dict:
    """The record `which` names: `prev` (the build before the published one), `-N` (N builds before it)
    or a build id; BuildUnknown lists the kept ones."""
    kept = records(lake)
    ids = [r["build_id"] for r in kept]
    known = ", ".join(ids) if ids else "none (snapshots start with the next publish; $PEERLAKE_KEEP_BUILDS)"
    which = which.strip()
    if which == "prev" or (which.startswith("-") and which[1:].isdigit()):
        back = 1 if which == "prev" else int(which[1:])
        # the published file's own record, when it has one, is build 0 back
        older = kept[:-1] if current(lake, kept) else kept
        if back < 1 or back > len(older):
            raise BuildUnknown(f"no build {which}: {len(older)} kept before the published one (kept: {known})")
        return older[-back]
    for r in kept:
        if r["build_id"] == which:
            return r
    raise BuildUnknown(f"no kept build {which!r}; kept builds: {known}")


def mart_sql(lake: Lake, mart: dict) -> str:
    """A SELECT of one mart of a record, each column cast back to the type it had in the published file."""
    def typed(name: str, kind: str, value: str) -> str:
        return f"{value} as {quote(name)}" if kind == NULL_TYPE else f"cast({value} as {kind}) as {quote(name)}"

    if not mart["chunks"]:
        return "select " + ", ".join(typed(n, t, "null") for n, t in mart["columns"]) + " where false"
    files = ", ".join(literal(chunk_path(lake, c)) for c in mart["chunks"])
    return "select " + ", ".join(typed(n, t, quote(n)) for n, t in mart["columns"]) + \
        f" from read_parquet([{files}])"


def _snapshot_mart(con, lake: Lake, name: str, key: Sequence[str], columns: list[list[str]]) -> dict:
    """Write the chunks of one attached mart that no build has yet; return its record entry."""
    table = f"pub.main.{quote(name)}"
    keys = ", ".join(quote(k) for k in key)
    # The order is found on a narrow projection (row id, key, row hash) and the wide rows joined back by
    # row id only for new chunks: sorting fct_llm_calls' whole 1.4 KB rows took longer than the rest.
    # DuckDB's hash() of the row, not md5 of its text: 25x faster (2.4 s → 0.09 s for 100 k fct_llm_calls
    # rows) and no timestamp formatting that depends on the session's time zone. A DuckDB upgrade may
    # change hash(): then the next build writes its chunks anew, once.
    con.execute(f"""create or replace temp table _order as
        select _rid, _rn, _row_hash, sum(_starts::int) over (order by _rn rows unbounded preceding) as _chunk from (
            select _rid, _row_hash, hash(row({keys})) & {BOUNDARY_MASK} = 0 as _starts,
                   row_number() over (order by {keys}, _row_hash) as _rn
            from (select rowid as _rid, {keys}, hash(__row) as _row_hash from {table} as __row))""")
    head = json.dumps(columns).encode()
    chunks, rows, new = [], 0, {}
    for chunk, n, hashes in con.execute("select _chunk, count(*), string_agg(_row_hash::varchar, ',' order by _rn) "
                                        "from _order group by _chunk order by _chunk").fetchall():
        sha = hashlib.sha256(head + b"\n" + hashes.encode()).hexdigest()
        chunks.append(sha)
        rows += n
        if not chunk_path(lake, sha).exists():
            new[chunk] = sha
    if new:
        # one pass writes every new chunk, a folder per chunk (DuckDB's partitioned COPY)
        out = builds_dir(lake) / f".new.{os.getpid()}"
        shutil.rmtree(out, ignore_errors=True)
        select = ", ".join(f"t.{quote(c)}" for c, _ in columns)
        con.execute(f"copy (select {select}, o._chunk from {table} t join _order o on t.rowid = o._rid "
                    f"where o._chunk in ({', '.join(map(str, new))}) order by o._rn) to {literal(out)} "
                    "(format parquet, compression zstd, partition_by (_chunk))")
        for chunk, sha in new.items():
            (part,) = (out / f"_chunk={chunk}").glob("*.parquet")
            with open(part, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(part, chunk_path(lake, sha))
        shutil.rmtree(out)
    con.execute("drop table _order")
    return {"columns": columns, "key": list(key), "chunks": chunks, "rows": rows, "new_chunks": len(new)}


def snapshot(lake: Lake, marts: Iterable[str] | None = None, key_columns: KeyColumns = default_key,
             chain_head_seq: int | None = None) -> dict:
    """Record the published file's marts (every table not named int_/stg_ when `marts` is None) as the
    next build; return the record. Raises on any error (keep_build() is the caller that must not)."""
    import duckdb

    signature = file_signature(lake.duckdb_path)
    if signature is None:
        raise FileNotFoundError(f"no published file at {lake.duckdb_path}")
    chunks_dir(lake).mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        con.execute("set enable_progress_bar = false")
        con.execute(f"set temp_directory = {literal(builds_dir(lake) / '.tmp')}")
        con.execute(f"attach {literal(lake.duckdb_path)} as pub (read_only)")
        tables = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() where database_name = 'pub' and schema_name = 'main' "
            "order by table_name").fetchall()]
        wanted = sorted(set(tables) & set(marts)) if marts is not None else \
            [t for t in tables if not t.startswith(("int_", "stg_"))]
        entries = {}
        for name in wanted:
            columns = [[c, t] for c, t in con.execute(
                "select column_name, data_type from duckdb_columns() where database_name = 'pub' "
                "and schema_name = 'main' and table_name = ? order by column_index", [name]).fetchall()]
            key = [k for k in key_columns(name, [c for c, _ in columns]) if k in {c for c, _ in columns}]
            entries[name] = _snapshot_mart(con, lake, name, key or [c for c, _ in columns], columns)
    finally:
        con.close()
    kept = records(lake)
    build_id = str(int(kept[-1]["build_id"]) + 1 if kept else 1)
    record = {"build_id": build_id, "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "chain_head_seq": chain_head_seq, "file": signature,
              "marts": {n: {k: v for k, v in e.items() if k != "new_chunks"} for n, e in entries.items()}}
    atomic_write(builds_dir(lake) / f"{build_id}.json", json.dumps(record, indent=1).encode())
    record["new_chunks"] = sum(e["new_chunks"] for e in entries.values())
    return record


def prune(lake: Lake, keep: int) -> dict:
    """Keep the newest `keep` records and the chunks they name; return what was removed."""
    kept = records(lake)
    dropped = kept[:-keep] if keep else kept
    for r in dropped:
        (builds_dir(lake) / f"{r['build_id']}.json").unlink(missing_ok=True)
    named = {c for r in kept[len(dropped):] for m in r["marts"].values() for c in m["chunks"]}
    removed = 0
    for path in chunks_dir(lake).glob("*.parquet"):
        if path.stem not in named:
            path.unlink(missing_ok=True)
            removed += 1
    if dropped or removed:
        fsync_dir(chunks_dir(lake))
    return {"records_removed": len(dropped), "chunks_removed": removed}


def keep_build(lake: Lake, marts: Iterable[str] | None = None, key_columns: KeyColumns = default_key,
               chain_head_seq: int | None = None, logger=None) -> dict | None:
    """Snapshot the just-published file and prune to $PEERLAKE_KEEP_BUILDS; None when off or on any error,
    which is logged as a warning (on `logger`, e.g. a Dagster step's): the publish has happened and stands."""
    try:
        keep = settings.keep_builds()
        if keep == 0:
            return None
        t0 = time.monotonic()
        with file_lock(lake.locks_dir / "builds.lock"):
            record = snapshot(lake, marts, key_columns, chain_head_seq)
            record.update(prune(lake, keep))
        record["seconds"] = round(time.monotonic() - t0, 3)
        return record
    except Exception as exc:  # a snapshot never fails a publish
        (logger or log).warning(f"build snapshot not kept (the publish stands): {type(exc).__name__}: {exc}")
        return None


def disk_bytes(lake: Lake) -> int:
    """What the kept builds take on disk (records and chunks)."""
    return sum(p.stat().st_size for p in builds_dir(lake).rglob("*") if p.is_file())
