"""`verify` names the tampering only a lake on this disk shows: this machine's write-ahead files, lakes of the
range-named layout, segments named for a write-ahead range; and what only a store no other machine writes
repairs. Each test builds a real lake, tampers with one file, and checks the file is named. The tampering with
manifests, segments, blobs and heads through the Store runs on every store (conformance/test_tamper_*.py)."""

import dataclasses
import json
import multiprocessing as mp
import re
from pathlib import Path

import pytest

from peerlake.warehouse import EventLog, Lake, PaperIngested
from peerlake.warehouse.blobs import lake_store, sha256_hex
from peerlake.warehouse.events import EVENT_TYPES
from peerlake.warehouse.references import BLOB_FIELDS, NOT_BLOBS
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.tamper import (
    PDF,
    call,
    forged_segment,
    paper,
    problems,
    range_manifests,
    range_stem,
    read_head,
    seal_three,
)


@pytest.fixture
def sealed(lake) -> EventLog:
    """Three seals of one WAL, each its own manifest, after the genesis and the schema manifest
    (tests/warehouse/conformance/tamper.py)."""
    return seal_three(EventLog(lake))


def test_deleted_wal_is_named(sealed):
    wal = sealed.wal_path
    wal.unlink()
    assert any(str(wal) in p and "missing" in p for p in problems(sealed.lake))


def test_wal_edited_after_its_manifest_was_removed_is_named(sealed):
    _, middle, _ = range_manifests(sealed.store)
    stem = range_stem(sealed.store, middle)
    sealed.store.delete(middle)
    wal = sealed.wal_path
    data = wal.read_bytes()
    start, end = map(int, re.findall(r"-(\d{12})", stem))
    edited = data[start:end].replace(b"Paper 1", b"Paper X")  # same length: offsets stay valid
    assert edited != data[start:end]
    wal.write_bytes(data[:start] + edited + data[end:])
    found = problems(sealed.lake)
    # The orphan segments of that range no longer match the WAL bytes they were written from.
    assert any(str(wal) in p and "now hold other events" in p and stem in p for p in found)


def _old_lake(lake: Lake, chained: bool = True) -> Path:
    """The `sealed` lake's events as the range-named layout wrote them (tests/warehouse/old_layout.py)."""
    from types import SimpleNamespace

    from peerlake.warehouse.blobs import BlobStore, lake_store
    from tests.warehouse.old_layout import write_old_lake

    writer = SimpleNamespace(blobs=BlobStore(lake, lake_store(lake)))
    return write_old_lake(lake, [[paper(writer, 0)], [paper(writer, 1), call(writer, "k1")],
                                 [call(writer, "k2")]], chained)


def _old_range_manifests(lake: Lake) -> list[Path]:
    """The range-named manifests of one WAL in byte order (their names sort by offset)."""
    return sorted(p for p in lake.manifests_dir.glob("*.json") if "-" in p.stem and not p.name.startswith("000000"))


def test_a_legacy_lake_verifies_with_a_warning_and_its_manifests_are_pinned_once_chained(lake):
    _old_lake(lake, chained=False)  # written before the chain: range-named manifests without seq
    log = EventLog(lake)
    report = verify_lake(log)
    assert report.ok, report.problems
    assert any("no hash chain yet" in w for w in report.warnings)
    log.seal()  # starts the chain: the genesis pins every legacy manifest
    report = verify_lake(log)
    assert report.ok, report.problems
    genesis = lake.manifests_dir / f"{1:012d}.json"
    assert json.loads(genesis.read_bytes())["genesis"]
    assert any(genesis.name in w and "predate the hash chain" in w for w in report.warnings)
    legacy = _old_range_manifests(lake)[0]
    legacy.write_text(legacy.read_text().replace('"events": 1', '"events": 7'))
    assert any(legacy.name in p and "rewritten after the chain started" in p for p in problems(lake))


def test_a_pdf_kept_only_since_the_chain_is_a_warning_before_it_and_a_problem_after(lake):
    _old_lake(lake, chained=False)
    log = EventLog(lake)
    pdf = log.blobs.path(sha256_hex(PDF))
    pdf.unlink()  # a lake from before PDF bytes were kept
    report = verify_lake(log)
    assert report.ok and any(str(pdf) in w and "before the PDF bytes were kept" in w for w in report.warnings)
    log.seal()  # the chain starts now; the old papers stay a warning
    assert verify_lake(log).ok
    other = b"%PDF-1.4 another manuscript"
    log.append(dataclasses.replace(paper(log, 9), pdf_sha256=sha256_hex(other)))  # never stored
    found = problems(lake)
    assert any(str(log.blobs.path(sha256_hex(other))) in p for p in found)
    assert not any(str(pdf) in p for p in found)


def test_a_lake_written_by_the_range_named_layout_reads_verifies_and_its_chain_continues(lake):
    _old_lake(lake)
    old = {p.name: p.read_bytes() for p in lake.manifests_dir.glob("*.json")}
    old_head = read_head(lake_store(lake))
    log = EventLog(lake)
    assert {p.name for p in lake.manifests_dir.glob("*.json")} == set(old)  # start-up writes nothing
    assert sorted(e.paper_id for e in log.iter_events("paper_ingested")) == ["p0", "p1"]
    assert log.count("llm_call") == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert report.head == old_head and old_head.seq == 1 + len(EVENT_TYPES) + 3  # the old chain as it was

    log.append(call(log, "k3"))
    assert log.seal().events_sealed == 1
    new = lake.manifests_dir / f"{old_head.seq + 1:012d}.json"  # the numbered chain continues after the old one
    assert json.loads(new.read_bytes())["prev_sha256"] == old_head.sha256
    assert {p.name: p.read_bytes() for p in lake.manifests_dir.glob("*.json") if p.name in old} == old  # unrewritten
    assert log.count("llm_call") == 3
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert report.head.seq == old_head.seq + 1 and read_head(lake_store(lake)) == report.head

    # Tampering with either part is named: the old part by its successor's link, the new part by the head.
    first, middle, last = _old_range_manifests(lake)
    middle.write_text(middle.read_text().replace('"events": 2', '"events": 5'))
    assert any(f"{middle.name} was rewritten" in p for p in problems(lake))
    middle.write_bytes(old[middle.name])
    last.write_text(last.read_text().replace('"events": 1', '"events": 5'))
    assert any(f"{last.name} was rewritten" in p for p in problems(lake))  # the link from old to new
    last.write_bytes(old[last.name])
    new.write_text(new.read_text().replace('"events": 1', '"events": 5'))
    assert any(new.name in p and "not the one the chain head recorded" in p for p in problems(lake))
    new.write_text(new.read_text().replace('"events": 5', '"events": 1'))
    assert verify_lake(EventLog(lake)).ok
    seg = lake.root / json.loads(first.read_bytes())["segments"][0]["path"]
    data = seg.read_bytes()
    seg.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert any(str(seg) in p and "modified" in p for p in problems(lake))
    seg.write_bytes(data)
    middle.unlink()
    assert any("missing between" in p and first.name in p and last.name in p for p in problems(lake))


def test_an_interrupted_range_named_seal_is_committed_as_it_was_cut(lake):
    from peerlake.warehouse.events import to_json_line

    wal = _old_lake(lake)
    log = EventLog(lake)
    start = wal.stat().st_size
    with open(wal, "ab") as fh:  # the old seal read these lines, wrote their segment and died
        fh.write(to_json_line(paper(log, 5)))
    end = wal.stat().st_size
    orphan = lake.segments_dir / "event_type=paper_ingested" / f"{wal.stem}-{start:012d}-{end:012d}.parquet"
    (ev,) = EventLog._parse(wal.read_bytes()[start:end], wal.name, [])
    EventLog._write_parquet(orphan, PaperIngested, [ev])
    with open(wal, "ab") as fh:  # … and the writer went on: the next seal's range is longer than the orphan's
        fh.write(to_json_line(paper(log, 6)))
    report = verify_lake(log)
    assert report.ok and any(str(orphan) in w and "`peerlake seal` commits them" in w for w in report.warnings)
    assert log.seal().events_sealed == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    committed = [seg["path"] for p in lake.manifests_dir.glob("0*.json")
                 for seg in json.loads(p.read_bytes())["segments"]]
    assert str(orphan.relative_to(lake.root)) in committed  # committed as it was cut


def test_a_lost_head_pointer_is_a_warning_and_the_next_seal_rewrites_it(sealed):
    # Here only: a process on a shared store reads the pointer once (commit.publish_head), so its next seal with
    # nothing new leaves a lost pointer lost; the next process, or the next commit, rewrites it.
    sealed.lake.chain_head.unlink()
    report = verify_lake(sealed)
    assert report.ok and any("no chain head pointer" in w for w in report.warnings)
    sealed.seal()
    assert verify_lake(sealed).warnings == []


def _seal_repeatedly(root: str, tag: str) -> None:
    log = EventLog(Lake(Path(root)))  # start-up races to write the schema manifests, too
    for i in range(6):
        log.append(dataclasses.replace(paper(log, i), paper_id=f"{tag}-{i}"))
        log.seal()


def test_concurrent_sealers_build_one_chain(lake):
    # fork, not spawn: the children need nothing re-imported, and the WAL writer is keyed by pid.
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_seal_repeatedly, args=(str(lake.root), t)) for t in "abc"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    report = verify_lake(EventLog(lake))
    assert report.ok, report.problems
    assert report.warnings == []
    # 3 processes × 6 seals, each sealing at least its own new event: at most 18 range manifests
    # (fewer when one seal picked up another process's lines); seq is 1..N with no gap or duplicate.
    assert report.head.seq == report.checked_manifests


def test_every_sha256_field_is_either_a_checked_blob_or_a_documented_hash():
    for etype, cls in EVENT_TYPES.items():
        for f in dataclasses.fields(cls):
            if f.name.endswith("_sha256"):
                assert f.name in BLOB_FIELDS.get(etype, ()) or (etype, f.name) in NOT_BLOBS, (etype, f.name)


# ---- segments no manifest lists (issue 23 §3) -----------------------------------------------------------

def test_a_sealed_segment_copied_into_another_partition_fails_verify(sealed):
    # The copy holds exactly the WAL bytes it is named for, but those bytes are sealed already: read, it
    # would count every call twice. Not an interrupted seal, whatever its name says.
    newest = range_manifests(sealed.store)[-1]  # its range holds one call: the copy holds all its events
    seg = sealed.lake.segments_dir / "event_type=llm_call" / f"{range_stem(sealed.store, newest)}.parquet"
    copy = sealed.lake.segments_dir / "event_type=llm_call_duplicated" / seg.name
    copy.write_bytes(seg.read_bytes())
    assert any(str(copy) in p and "not its next unsealed range" in p for p in problems(sealed.lake))


def test_a_forged_segment_named_for_the_next_range_is_rewritten_by_the_seal_not_committed(sealed):
    import pyarrow.parquet as pq

    log = sealed
    log.append(call(log, "k3"))  # in the WAL, not sealed yet
    start = log.sealed_offsets()[log.wal_path.name]
    end = log.wal_path.stat().st_size
    real = next(log.lake.segments_dir.glob("event_type=llm_call/01*.parquet"))  # one row, as the range
    forged = log.lake.segments_dir / "event_type=llm_call" / f"{log.wal_path.stem}-{start:012d}-{end:012d}.parquet"
    forged.write_bytes(forged_segment(real.read_bytes()))
    assert any(str(forged) in p and "now hold other events" in p for p in problems(log.lake))
    log.seal()
    report = verify_lake(log)
    assert report.ok, report.problems
    (k3,) = [e for e in log.iter_events("llm_call") if e.request_key == "k3"]
    assert k3.cost_usd == 0.0 and [r["cost_usd"] for r in pq.read_table(forged).to_pylist()] == [0.0]


def _killed(*_):
    raise RuntimeError("killed before the manifest was written")


def test_an_interrupted_seal_overtaken_by_new_lines_is_committed_once(lake, monkeypatch):
    # Here only: where no other machine writes, a staged segment no manifest names is this machine's to delete
    # (commit.drop_orphan_staging); on a shared store it stays, and verify warns about it on every run.
    import peerlake.warehouse.commit as numbered
    log = EventLog(lake)
    log.append(paper(log, 0))
    monkeypatch.setattr(numbered, "after_staging", _killed)
    with pytest.raises(RuntimeError):
        log.seal()  # the segment is staged, its manifest is not written
    monkeypatch.undo()
    (orphan,) = (lake.events / "staging").glob("*.parquet")
    assert not list(lake.segments_dir.glob("event_type=paper_ingested/01*.parquet"))  # dbt sees nothing of it
    log.append(paper(log, 1))  # the writer went on: the next seal's range is longer than the orphan's
    report = verify_lake(log)
    assert report.ok and any(orphan.name in w and "in no manifest" in w for w in report.warnings)
    assert log.seal().events_sealed == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert not orphan.exists() and len(list(log.iter_events("paper_ingested"))) == 2
