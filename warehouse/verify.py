"""Re-derive every hash in the lake and check that nothing committed was removed, rewritten or reordered.

- each manifest's segments and sealed WAL range hash to what it recorded, and its file name is the
  pure function of what it commits (a renamed or swapped manifest shows);
- the manifests form one hash chain with no gap, up to the head pointer (warehouse/chain.py), numbered
  ones and an older lake's range-named ones alike (each numbered key names its body's seq);
- every head recorded in the witness log (warehouse/heads.py), and the head `--head H` names, is still
  the manifest at its seq;
- each WAL's sealed ranges tile it from byte 0 in commit order (a deleted manifest leaves a hole);
- a segment no manifest lists fails, whatever its name: dbt does not read it, but nothing accounts for
  it. The one exception, a warning: on a lake on this disk written by the range-named layout, the segments
  of a seal interrupted before its manifest, i.e. named for the next unsealed range of a WAL and holding
  exactly the events of those WAL bytes (`peerlake seal` commits them). A staged segment no manifest names
  is a warning too (a seal interrupted before its commit point);
- every blob hashes to its name, and every blob an event names exists (warehouse/references.py);
- prompt template sources are the text of their prompt_hash.

With a head to check against (one recorded in the witness log, or `--head H`) this also catches, up to
that head: the newest manifest rewritten together with the head pointer, a manifest in the middle
rewritten and the chain re-linked after it, manifests reordered and re-linked, and the chain cut back
(newest manifests deleted with their segments and write-ahead files, the head pointer rewritten).
Without one it cannot (the chain is then only checked against itself) and says so in a warning.
Everything is read from the store, never this machine's caches. On a lake with a URL, write-ahead files
of other machines are checked on those machines.

Never detectable: a WAL deleted or edited before its first seal (nothing recorded it yet), changes after
the newest head you check against, and a lake whose chain, head pointer and witness log were all
rewritten together, unless you check it against a head kept outside the lake (`peerlake verify --head H`
with a head printed by `peerlake seal`, `run` or `build`, or shown in the report footer).
"""

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from peerlake.warehouse import heads
from peerlake.warehouse.blobs import BLOBS, blob_key, is_blob_name, sha256_hex
from peerlake.warehouse.chain import Link, check_chain
from peerlake.warehouse.commit import (
    GENESIS_NAME,
    HEAD,
    MANIFESTS,
    SEGMENTS,
    STAGING,
    NumberedManifest,
    read_head,
    seq_of_key,
    upcast,
)
from peerlake.warehouse.events import EVENT_TYPES
from peerlake.warehouse.log import RANGE_STEM, EventLog
from peerlake.warehouse.references import iter_blob_refs, package_images


@dataclass
class VerifyReport:
    checked_blobs: int = 0
    checked_segments: int = 0
    checked_wal_ranges: int = 0
    checked_manifests: int = 0
    checked_blob_refs: int = 0
    head: Link | None = None  # the newest manifest of the chain
    extends_seq: int | None = None  # with `extends`: the seq of the published head in this chain
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_lake(log: EventLog, extends: str | None = None) -> VerifyReport:
    """Everything above; with `extends` (a head published earlier), also that the chain still holds it."""
    store = log.store
    report = VerifyReport()
    manifests: list[NumberedManifest] = []
    for info in store.list(MANIFESTS):
        report.checked_manifests += 1
        where = store.uri(info.key)
        raw = store.get(info.key)
        seq = seq_of_key(info.key)
        m = upcast(info.key, raw)
        if m is None or (why := _malformed(m.body)):
            what = "not a manifest (a JSON object with a segments list)" if m is None else why
            report.problems.append(f"manifest {where}: {what}")
            continue
        if seq is not None:  # numbered: the key names the seq
            if m.seq != seq:
                report.problems.append(f"manifest {where} says seq {m.body.get('seq')}: manifests were renamed, "
                                       "swapped or reordered")
                continue
            m = NumberedManifest(seq, raw, m.body)
        elif not info.key.endswith(".json"):
            report.problems.append(f"{where} is not a manifest name: an object was added to the manifests")
            continue
        else:  # the range-named layout: the name is a function of what it commits
            _check_name(m, report)
        manifests.append(m)
        _check_stored_segments(log, m, report)
        _check_wal_range(log, m, report)
    chain = check_chain(store.uri(HEAD), read_head(store), manifests)
    report.problems += chain.problems
    report.warnings += chain.warnings
    report.head = chain.tip
    chained = sorted((m for m in manifests if m.seq), key=lambda m: m.seq)
    _check_wal_tiling([*(m for m in manifests if not m.seq), *chained], report)
    bodies = [m.body for m in manifests]
    _check_stray_objects(log, bodies, report)
    existing = _check_blobs(log, report)
    _check_blob_refs(log, bodies, existing, chain.started_at, report)
    _check_prompt_sources(log, report)
    check_against_heads(log, chain.seq_of_sha, extends, report)
    return report


def check_against_heads(log: EventLog, seq_of_sha: dict[str, int], extends: str | None,
                        report: VerifyReport) -> None:
    """The chain against the heads kept apart from it: `extends` (published) and the witness log."""
    tip = report.head.seq if report.head else 0
    problems, warnings = heads.check(log.lake, {seq: sha for sha, seq in seq_of_sha.items()}, tip,
                                     published=extends is not None)
    report.problems += problems
    report.warnings += warnings
    if extends is not None:
        _check_extends(extends.strip().lower(), seq_of_sha, report)


def _malformed(body: dict) -> str | None:
    """What is missing from a manifest for the checks below to read it (None: nothing)."""
    segs = body.get("segments")
    if not isinstance(segs, list) or not all(
            isinstance(s, dict) and isinstance(s.get("path"), str) and isinstance(s.get("sha256"), str)
            for s in segs):
        return "its segments list is missing or malformed"
    if body.get("wal") and not (isinstance(body.get("start"), int) and isinstance(body.get("end"), int)
                                and isinstance(body.get("wal_sha256"), str)):
        return "its write-ahead range (start, end, wal_sha256) is missing or malformed"
    return None


def _check_name(m: NumberedManifest, report: VerifyReport) -> None:
    """A range-named manifest's name is a function of what it commits; a renamed or swapped one breaks that."""
    body = m.body
    if body.get("genesis"):
        expected = GENESIS_NAME
    elif body.get("wal"):
        expected = f"{Path(body['wal']).stem}-{body['start']:012d}-{body['end']:012d}"
    else:
        expected = None  # a schema segment's manifest: its name is its segment's
    stems = {Path(seg["path"]).stem for seg in body.get("segments", [])}
    if (expected is not None and expected != m.stem) or stems - {m.stem}:
        what = f"{expected}.json" if expected else ", ".join(sorted(stems))
        report.problems.append(f"manifest {m.stem}.json holds the record of {what}: manifests were renamed, "
                               "swapped or reordered")


def _check_wal_tiling(files: list[NumberedManifest], report: VerifyReport) -> None:
    """Each WAL is sealed from byte 0 in consecutive ranges, committed in order; a hole is a lost manifest."""
    ranges: dict[str, list[tuple[int, int, str, int | None]]] = {}
    for mf in files:
        if mf.body is not None and mf.body.get("wal"):
            ranges.setdefault(mf.body["wal"], []).append((mf.body["start"], mf.body["end"], mf.stem, mf.seq or None))
    for wal, rs in sorted(ranges.items()):
        rs.sort()
        at, prev = 0, None
        for start, end, stem, _ in rs:
            if start > at:
                gone = f"{Path(wal).stem}-{at:012d}-{start:012d}.json"
                report.problems.append(f"no manifest seals bytes {at}–{start} of write-ahead file {wal}, but later "
                                       f"bytes are sealed ({stem}.json): the range's manifest ({gone}, if one seal "
                                       "committed it) was deleted")
            elif start < at:
                report.problems.append(f"manifests {prev}.json and {stem}.json both seal bytes {start}–{at} of "
                                       f"write-ahead file {wal}")
            at, prev = max(at, end), stem
        seqs = [seq for _, _, _, seq in rs if seq is not None]
        if seqs != sorted(seqs):
            report.problems.append(f"the manifests of write-ahead file {wal} are out of order in the chain "
                                   "(a later byte range committed before an earlier one): manifests were reordered")


def _check_stray_objects(log: EventLog, manifests: list[dict], report: VerifyReport) -> None:
    """An object under `events/segments/` no manifest lists fails (dbt's glob sees it), unless, on a lake on
    this disk, it is the range-named layout's interrupted seal: the next range of its WAL, whose bytes it holds
    exactly. A staged segment no manifest names is an interrupted seal's, a warning."""
    store = log.store
    listed = {seg["path"] for m in manifests for seg in m.get("segments", [])}
    staged = {seg["staged"] for m in manifests for seg in m.get("segments", []) if seg.get("staged")}
    sealed_end = EventLog._sealed_offsets(manifests)
    orphans: dict[str, list[str]] = {}
    for info in store.list(SEGMENTS):
        if info.key not in listed:
            orphans.setdefault(Path(info.key).stem, []).append(info.key)
    for stem, keys in sorted(orphans.items()):
        names = ", ".join(store.uri(k) for k in keys)
        m = RANGE_STEM.fullmatch(stem)
        if m is None or not log.store.in_place:
            report.problems.append(f"segment(s) {names} are in no manifest: dbt reads them as committed (added by "
                                   "hand, or their manifest deleted?)")
        elif (mismatch := _wal_disagrees(log, m, keys)) is not None:
            report.problems.append(f"segment(s) {names} are in no manifest and {mismatch} (was the WAL edited "
                                   "after its manifest was removed?)")
        elif int(m["start"]) != sealed_end.get(f"{m['wal']}.jsonl", 0):
            report.problems.append(f"segment(s) {names} are in no manifest, and bytes {int(m['start'])}–"
                                   f"{int(m['end'])} of write-ahead file {m['wal']}.jsonl are not its next unsealed "
                                   "range: their manifest was deleted, or they were copied there")
        else:
            report.warnings.append(f"segment(s) {names} are in no manifest: a seal interrupted before its commit "
                                   "point (they hold exactly the next unsealed range of their write-ahead file; dbt "
                                   "does not read them yet). `peerlake seal` commits them")
    for info in store.list(STAGING):
        if info.key not in staged:
            report.warnings.append(f"staged segment {store.uri(info.key)} is in no manifest (a seal interrupted "
                                   "before its commit point; never read; `peerlake seal` commits the range again)")


def _wal_disagrees(log: EventLog, m: re.Match, keys: list[str]) -> str | None:
    """Why the WAL range named by an orphan segment's stem does not hold the segment's events; None if it does."""
    wal = log.lake.wal_dir / f"{m['wal']}.jsonl"
    start, end = int(m["start"]), int(m["end"])
    if not wal.exists():
        return f"write-ahead file {wal}, which they were written from, is missing"
    with open(wal, "rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    if len(data) != end - start:
        return f"write-ahead file {wal} is shorter than the range {start}–{end} they were written from"
    try:
        # Compared as records, not by type: a second success may have been routed to llm_call_duplicated.
        in_segments = {ev.event_id: ev.to_record() for k in keys
                       for row in pq.read_table(log.store.path(k)).to_pylist()
                       for ev in [EVENT_TYPES[Path(k).parent.name.removeprefix("event_type=")].from_record(row)]}
    except Exception as exc:  # a damaged orphan: unreadable is a disagreement too
        return f"cannot be read ({type(exc).__name__}: {exc})"
    in_wal = {ev.event_id: ev.to_record() for ev in log._parse(data, wal.name, [])}
    if in_segments != in_wal:
        return f"write-ahead file {wal} bytes {start}–{end}, which they were written from, now hold other events"
    return None


def _check_blobs(log: EventLog, report: VerifyReport) -> set[str]:
    """Every object under blobs/, read from the store (never a cache), against its name."""
    existing = set()
    store = log.store
    for info in store.list(BLOBS):
        report.checked_blobs += 1
        sha = info.key.rsplit("/", 1)[-1]
        existing.add(sha)
        if info.key != blob_key(sha) or sha256_hex(store.get(info.key)) != sha:
            report.problems.append(f"blob {store.uri(info.key)} does not match its SHA-256 name")
    return existing


def _check_blob_refs(log: EventLog, manifests: list[dict], existing: set[str], chain_started: datetime | None,
                     report: VerifyReport) -> None:
    packages: set[str] = set()
    for ref in iter_blob_refs(log, manifests):
        report.checked_blob_refs += 1
        if ref.field == "package_sha256":
            packages.add(ref.sha256)
        if ref.sha256 in existing or ref.event_type == "prompt_template_stored":
            continue  # (a template's missing source is named with its template by _check_prompt_sources)
        if not is_blob_name(ref.sha256):  # a forged event: never turned into a path
            report.problems.append(f"{ref.event_type} {ref.event_id}: its {ref.field} {str(ref.sha256)[:80]!r} "
                                   "is not a blob name (64 lowercase hex characters)")
            continue
        msg = (f"{ref.event_type} {ref.event_id}: its {ref.field} names blob {log.store.uri(blob_key(ref.sha256))}, "
               "which is missing")
        if ref.field == "pdf_sha256" and (chain_started is None or ref.occurred_at is None
                                          or ref.occurred_at < chain_started):
            # The PDF bytes are kept only since the studies release; re-ingesting the file restores them.
            report.warnings.append(f"{msg} (ingested before the PDF bytes were kept? `peerlake ingest pdf` of "
                                   "the same file restores them)")
        else:
            report.problems.append(msg)
    for sha in sorted(packages & existing):
        for img in package_images(log.store.get(blob_key(sha))):
            report.checked_blob_refs += 1
            if img not in existing:
                where = log.store.uri(blob_key(img)) if is_blob_name(img) else f"{str(img)[:80]!r} (not a blob name)"
                report.problems.append(f"manuscript package {sha[:16]}… names image blob {where}, which is missing")


def _check_prompt_sources(log: EventLog, report: VerifyReport) -> None:
    try:
        stored = list(log.iter_events("prompt_template_stored"))
    except Exception as exc:  # a damaged segment: named by the file checks above
        report.problems.append(f"prompt_template_stored events cannot be read ({type(exc).__name__}: {exc})")
        return
    for ev in stored:
        # The stored source must be the very text whose hash versioned the calls.
        if ev.source_sha256 != ev.prompt_hash:
            report.problems.append(f"prompt_template_stored {ev.event_id}: source blob {ev.source_sha256[:16]}… "
                                   f"is not the text of prompt_hash {ev.prompt_hash[:16]}…")
        elif not log.blobs.exists(ev.source_sha256):
            report.problems.append(f"prompt template {ev.prompt_template} ({ev.prompt_hash[:16]}…): "
                                   "source blob is missing")


def _check_extends(published: str, seq_of_sha: dict[str, int], report: VerifyReport) -> None:
    if published not in seq_of_sha:
        report.problems.append(f"the log does not extend head {published}: no manifest in its chain has that "
                               "SHA-256 (the log was rewritten or cut back since, or the head is from another lake)")
    else:
        report.extends_seq = seq_of_sha[published]


_SCHEMA_STEM = re.compile(r"000000-schema-(?P<type>[a-z_]+)-v\d+")


def _check_stored_segments(log: EventLog, mf: NumberedManifest, report: VerifyReport) -> None:
    store, body = log.store, mf.body
    stem = f"{Path(body['wal']).stem}-{body['start']:012d}-{body['end']:012d}" if body.get("wal") else None
    for seg in body["segments"]:
        report.checked_segments += 1
        key, where = seg["path"], store.uri(seg["path"])
        name = Path(key).stem
        if not key.startswith(SEGMENTS) or (name != stem if stem else not _SCHEMA_STEM.fullmatch(name)):
            report.problems.append(f"manifest {mf.stem}.json lists {where}, which is not named for what it commits")
        try:
            data = store.get(key)
        except FileNotFoundError:
            report.problems.append(f"segment {where} is listed in manifest {mf.stem}.json but missing")
            continue
        if (got := sha256_hex(data)) != seg["sha256"]:
            report.problems.append(f"segment {where} was modified: sha256 {got[:16]}… but manifest {mf.stem}.json "
                                   f"recorded {seg['sha256'][:16]}…")
            continue
        try:
            rows = pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
        except pa.ArrowException as exc:
            report.problems.append(f"segment {where} cannot be read: {exc}")
            continue
        if rows != seg.get("rows"):
            report.problems.append(f"segment {where} holds {rows} rows, manifest {mf.stem}.json recorded "
                                   f"{seg.get('rows')}")


def _check_wal_range(log: EventLog, mf: NumberedManifest, report: VerifyReport) -> None:
    """A committed range of one of this machine's write-ahead files must still hold the sealed bytes."""
    body = mf.body
    if not body.get("wal"):
        return
    wal = log.lake.wal_dir / body["wal"]
    report.checked_wal_ranges += 1
    if not wal.exists():
        if not log.store.shared:  # on a lake only this machine writes, every write-ahead file is its own
            report.problems.append(f"write-ahead file {wal} is missing (sealed by {mf.stem}.json)")
        return  # else another machine's: the segments are the record
    with open(wal, "rb") as fh:
        fh.seek(body["start"])
        data = fh.read(body["end"] - body["start"])
    if sha256_hex(data) != body["wal_sha256"]:
        report.problems.append(f"write-ahead file {wal} bytes {body['start']}–{body['end']} changed after they "
                               f"were sealed (manifest {mf.stem}.json)")
