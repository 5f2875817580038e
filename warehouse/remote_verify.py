"""`peerlake verify` on a lake on object storage: re-derive every hash from the remote bytes.

- the manifests `events/manifests/<seq>.json` form one chain: seq 1 (the genesis) to the newest with no
  gap, each key naming its body's seq, each `prev_sha256` the SHA-256 of the previous manifest's bytes;
- the head pointer `events/chain_head.json` names a manifest of the chain with its SHA-256 (a deleted
  newest manifest leaves it past the end), and every head in this machine's witness log
  (warehouse/heads.py), and the one `--head H` names, is still in the chain; with neither, a warning says
  what cannot be seen then (as on a local lake: warehouse/verify.py);
- each committed segment exists at its key, hashes to what its manifest recorded, holds the recorded
  rows, and is named for its manifest's write-ahead range (or is a schema segment);
- each write-ahead file's committed ranges tile it from byte 0 in commit order; those of this machine's
  write-ahead files still hash to what was sealed (other machines' files are checked on those machines);
- no object under `events/segments/` is outside a manifest (dbt would read it);
- a staged segment no manifest names is a warning: a seal interrupted before its commit point;
- every blob hashes to its name, and every blob an event names exists; prompt sources match their hash.

Nothing here trusts this machine's caches: manifests, segments and blobs are read from the store.
"""

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.blobs import sha256_hex
from warehouse.chain import Link, ManifestFile, check_head
from warehouse.log import EventLog
from warehouse.objectstore import ObjectStore
from warehouse.references import BLOB_FIELDS, package_images
from warehouse.remote_blobs import BLOBS, blob_key
from warehouse.remote_chain import HEAD, MANIFESTS, SEGMENTS, STAGING, RemoteChain, read_head, segment_type, seq_of_key
from warehouse.verify import VerifyReport, _check_prompt_sources, _check_wal_tiling, _malformed, check_against_heads

_SCHEMA_STEM = re.compile(r"000000-schema-(?P<type>[a-z_]+)-v\d+")


def verify_remote(log: EventLog, store: ObjectStore, chain: RemoteChain, extends: str | None = None) -> VerifyReport:
    """`log` reads the events (this machine's WAL tails too); `store` and `chain` are its lake's."""
    report = VerifyReport()
    chained: list[ManifestFile] = []
    seq_of_sha: dict[str, int] = {}
    prev: ManifestFile | None = None
    listed: set[str] = set()  # committed segment keys
    staged: set[str] = set()  # staging keys some manifest names
    for info in store.list(MANIFESTS):
        report.checked_manifests += 1
        seq = seq_of_key(info.key)
        raw = store.get(info.key)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        where = store.uri(info.key)
        if seq is None:
            report.problems.append(f"{where} is not named <seq:012d>.json: an object was added to the manifests")
            continue
        if not isinstance(body, dict) or (why := _malformed(body)):
            what = "not a valid JSON object" if not isinstance(body, dict) else why
            report.problems.append(f"manifest {where}: {what}")
            continue
        mf = ManifestFile(f"{seq:012d}", raw, body)
        if body.get("seq") != seq:
            report.problems.append(f"manifest {where} says seq {body.get('seq')}: manifests were renamed or swapped")
        expected_prev = prev.seq + 1 if prev is not None else 1
        if seq != expected_prev:
            missing = f"seq {expected_prev}" if seq == expected_prev + 1 else f"seqs {expected_prev}–{seq - 1}"
            report.problems.append(f"manifest(s) {missing} missing before {where}: deleted from the chain")
        elif prev is not None and body.get("prev_sha256") != prev.sha256:
            report.problems.append(f"manifest {where} does not follow seq {prev.seq}: its prev_sha256 is not the "
                                   "SHA-256 of that manifest's bytes, so it was rewritten (or reordered)")
        if seq == 1 and not body.get("genesis"):
            report.problems.append(f"manifest {where} (seq 1) is not the genesis: the start of the chain was rewritten")
        chained.append(mf)
        seq_of_sha[mf.sha256] = seq
        prev = mf
        for seg in body["segments"]:
            listed.add(seg["path"])
            if seg.get("staged"):
                staged.add(seg["staged"])
        _check_segments(store, mf, report)
        _check_local_wal(log, mf, report)
    if prev is not None:
        report.head = Link(prev.seq, prev.sha256, prev.stem)
        problems, warnings = check_head(store.uri(HEAD), read_head(store), {int(m.stem): m for m in chained})
        report.problems += problems
        report.warnings += warnings
    _check_wal_tiling(chained, report)
    _check_stray_objects(store, listed, staged, report)
    existing = _check_blobs(store, report)
    _check_blob_refs(log, store, chain, chained, existing, report)
    _check_prompt_sources(log, report)
    check_against_heads(log, seq_of_sha, extends, report)
    return report


def _check_segments(store: ObjectStore, mf: ManifestFile, report: VerifyReport) -> None:
    body = mf.body
    stem = f"{Path(body['wal']).stem}-{body['start']:012d}-{body['end']:012d}" if body.get("wal") else None
    for seg in body["segments"]:
        report.checked_segments += 1
        key, where = seg["path"], store.uri(seg["path"])
        name = Path(key).stem
        if not key.startswith(SEGMENTS) or (name != stem if stem else not _SCHEMA_STEM.fullmatch(name)):
            report.problems.append(f"manifest seq {mf.seq} lists {where}, which is not named for what it commits")
        try:
            data = store.get(key)
        except FileNotFoundError:
            report.problems.append(f"segment {where} is listed in manifest seq {mf.seq} but missing")
            continue
        if (got := sha256_hex(data)) != seg["sha256"]:
            report.problems.append(f"segment {where} was modified: sha256 {got[:16]}… but manifest seq {mf.seq} "
                                   f"recorded {seg['sha256'][:16]}…")
            continue
        try:
            rows = pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
        except pa.ArrowException as exc:
            report.problems.append(f"segment {where} cannot be read: {exc}")
            continue
        if rows != seg.get("rows"):
            report.problems.append(f"segment {where} holds {rows} rows, manifest seq {mf.seq} recorded "
                                   f"{seg.get('rows')}")


def _check_local_wal(log: EventLog, mf: ManifestFile, report: VerifyReport) -> None:
    """A committed range of one of this machine's write-ahead files must still hold the sealed bytes."""
    body = mf.body
    if not body.get("wal"):
        return
    wal = log.lake.wal_dir / body["wal"]
    if not wal.exists():
        return  # another machine's (or a removed) write-ahead file: the segments are the record
    report.checked_wal_ranges += 1
    with open(wal, "rb") as fh:
        fh.seek(body["start"])
        data = fh.read(body["end"] - body["start"])
    if sha256_hex(data) != body["wal_sha256"]:
        report.problems.append(f"write-ahead file {wal} bytes {body['start']}–{body['end']} changed after they "
                               f"were sealed (manifest seq {mf.seq})")


def _check_stray_objects(store: ObjectStore, listed: set[str], staged: set[str], report: VerifyReport) -> None:
    for info in store.list(SEGMENTS):
        if info.key not in listed:
            report.problems.append(f"{store.uri(info.key)} is in no manifest: dbt reads it as committed "
                                   "(was it uploaded by hand, or its manifest deleted?)")
    for info in store.list(STAGING):
        if info.key not in staged:
            report.warnings.append(f"staged segment {store.uri(info.key)} is in no manifest (a seal interrupted "
                                   "before its commit point; never read; `peerlake seal` commits the range again)")


def _check_blobs(store: ObjectStore, report: VerifyReport) -> set[str]:
    existing = set()
    for info in store.list(BLOBS):
        report.checked_blobs += 1
        sha = info.key.rsplit("/", 1)[-1]
        existing.add(sha)
        if info.key != blob_key(sha) or sha256_hex(store.get(info.key)) != sha:
            report.problems.append(f"blob {store.uri(info.key)} does not match its SHA-256 name")
    return existing


def _check_blob_refs(log: EventLog, store: ObjectStore, chain: RemoteChain, chained: list[ManifestFile],
                     existing: set[str], report: VerifyReport) -> None:
    packages: set[str] = set()
    refs: list[tuple[str, str, str, str]] = []  # (event type, event id, field, sha)
    for mf in chained:
        for seg in mf.body["segments"]:
            etype = segment_type(seg["path"])
            if etype not in BLOB_FIELDS or not seg.get("rows"):
                continue
            try:
                table = pq.read_table(chain.segment_file(seg["path"]))
            except (OSError, pa.ArrowException):
                continue  # named by the segment checks
            cols = [c for c in ("event_id", *BLOB_FIELDS[etype]) if c in table.column_names]
            for row in table.select(cols).to_pylist():
                refs += [(etype, row["event_id"], f, row[f]) for f in BLOB_FIELDS[etype] if row.get(f)]
    sealed = log.sealed_offsets()
    for wal in log.wal_files():
        data, _ = log._complete_lines(wal, sealed.get(wal.name, 0))
        for ev in log._parse(data, wal.name, [], tuple(BLOB_FIELDS)):
            refs += [(ev.event_type, ev.event_id, f, sha) for f in BLOB_FIELDS[ev.event_type]
                     if (sha := getattr(ev, f, None))]
    for etype, event_id, field, sha in refs:
        report.checked_blob_refs += 1
        if field == "package_sha256":
            packages.add(sha)
        if sha not in existing and etype != "prompt_template_stored":
            report.problems.append(f"{etype} {event_id}: its {field} names blob {store.uri(blob_key(sha))}, "
                                   "which is missing")
    for sha in sorted(packages & existing):
        for img in package_images(store.get(blob_key(sha))):
            report.checked_blob_refs += 1
            if img not in existing:
                report.problems.append(f"manuscript package {sha[:16]}… names image blob "
                                       f"{store.uri(blob_key(img))}, which is missing")
