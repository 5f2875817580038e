"""`verify` names each kind of tampering: the manifests' hash chain, its head, WAL ranges, orphan segments
and every blob an event names. Each test builds a real lake, tampers with one file, and checks the file
is named."""

import dataclasses
import json
import multiprocessing as mp
import re
from pathlib import Path

import pytest

from warehouse import EventLog, Lake, LlmCall, PaperIngested
from warehouse.blobs import BlobCorrupted, sha256_hex
from warehouse.chain import Link
from warehouse.commit import manifest_bytes
from warehouse.events import EVENT_TYPES
from warehouse.references import BLOB_FIELDS, NOT_BLOBS
from warehouse.verify import verify_lake

PDF = b"%PDF-1.4 a manuscript"
IMAGE = b"\x89PNG a figure"
PACKAGE = json.dumps({"title": "t", "images": [{"sha256": sha256_hex(IMAGE), "ext": "png"}]}).encode()
REQUEST, RESPONSE = b'{"messages": []}', b'{"choices": []}'


def _paper(log: EventLog, i: int) -> PaperIngested:
    # Blobs first, as ingest does: the event names bytes that are already on disk.
    for blob in (PDF, IMAGE, PACKAGE):
        log.blobs.put(blob)
    return PaperIngested(paper_id=f"p{i}", title=f"Paper {i}", source_uri=f"file:///p{i}.pdf",
                         pdf_sha256=sha256_hex(PDF), package_sha256=sha256_hex(PACKAGE), n_pages=1,
                         n_text_records=3, n_chars=100 + i)


def _call(log: EventLog, key: str) -> LlmCall:
    return LlmCall(request_key=key, prompt_template=None, prompt_hash=None, reviewer_config="c", purpose="review",
                   subject_id="p0", sample_index=0, provider="openai", model="m", params_json="{}",
                   request_sha256=log.blobs.put(REQUEST), response_sha256=log.blobs.put(RESPONSE),
                   response_text="answer", finish_reason="stop", input_tokens=1, cached_input_tokens=0,
                   cache_write_tokens=None, output_tokens=1, reasoning_tokens=None, cost_usd=0.0,
                   cost_status="priced", price_table_version="v", latency_ms=1.0, attempt=1, status="ok")


@pytest.fixture
def sealed(lake) -> EventLog:
    """Three seals of one WAL: ranges [0,a) [a,b) [b,c), each its own manifest, chained after the
    genesis and the schema manifest."""
    log = EventLog(lake)
    log.append(_paper(log, 0))
    log.seal()
    log.append_many([_paper(log, 1), _call(log, "k1")])
    log.seal()
    log.append(_call(log, "k2"))
    log.seal()
    return log


def _chained(lake: Lake) -> list[Path]:
    """Every manifest file in seq order (numbered: `<seq:012d>.json`)."""
    return sorted(lake.manifests_dir.glob("*.json"), key=lambda p: json.loads(p.read_bytes())["seq"])


def _range_manifests(lake: Lake) -> list[Path]:
    """The WAL-range manifests in commit (= byte) order."""
    return [p for p in _chained(lake) if json.loads(p.read_bytes()).get("wal")]


def _range_stem(manifest: Path) -> str:
    """The name a manifest's segments have: its write-ahead file and byte range."""
    body = json.loads(manifest.read_bytes())
    return f"{Path(body['wal']).stem}-{body['start']:012d}-{body['end']:012d}"


def read_head(lake: Lake) -> Link | None:
    """The head pointer file as stored."""
    if not lake.chain_head.exists():
        return None
    d = json.loads(lake.chain_head.read_bytes())
    return Link(d["seq"], d["sha256"], d["manifest"])


def _problems(lake: Lake) -> list[str]:
    report = verify_lake(EventLog(lake))
    assert not report.ok
    return report.problems


def test_a_clean_lake_verifies_without_warnings(sealed):
    report = verify_lake(sealed)
    assert report.ok, report.problems
    assert report.warnings == []
    # 1 genesis + one schema manifest (a segment per event type) + 3 seals
    assert report.checked_manifests == 1 + 1 + 3
    assert [p.name for p in _chained(sealed.lake)] == [f"{seq:012d}.json" for seq in range(1, 6)]
    # paper 0, paper 1: pdf + package each, + the package's image once per package (2 packages named,
    # one distinct): 2*2 + 1 = 5; two calls: request + response each = 4; total 9.
    assert report.checked_blob_refs == 9
    assert report.head.seq == report.checked_manifests  # the chain holds every manifest, seq 1..N
    assert read_head(sealed.lake) == report.head


def test_changed_byte_in_a_segment_is_named(sealed):
    seg = next(sealed.lake.segments_dir.glob("event_type=llm_call/01*.parquet"))
    data = bytearray(seg.read_bytes())
    data[len(data) // 2] ^= 0x01
    seg.write_bytes(bytes(data))
    assert any(str(seg) in p and "modified" in p for p in _problems(sealed.lake))


def test_deleted_segment_is_named(sealed):
    seg = next(sealed.lake.segments_dir.glob("event_type=paper_ingested/01*.parquet"))
    seg.unlink()
    assert any(str(seg) in p and "missing" in p for p in _problems(sealed.lake))


def test_deleted_middle_manifest_is_named_by_the_chain_and_the_wal_range(sealed):
    first, middle, last = _range_manifests(sealed.lake)
    stem = _range_stem(middle)
    middle.unlink()
    problems = _problems(sealed.lake)
    # The chain: a gap between its neighbours. The WAL: a hole named after the range.
    assert any("missing between" in p and first.name in p and last.name in p for p in problems)
    assert any(f"{stem}.json" in p and "was deleted" in p for p in problems)
    # A seal afterwards does not heal it: the gap stays in the chain.
    EventLog(sealed.lake).seal()
    assert any("missing between" in p for p in _problems(sealed.lake))


def test_deleted_newest_manifest_is_named_by_the_head(sealed):
    newest = _range_manifests(sealed.lake)[-1]
    newest.unlink()
    assert any(newest.stem in p and "newest manifest" in p for p in _problems(sealed.lake))
    # A seal afterwards does not hide it: a manifest committed again at that seq is not the one the head
    # pointer and the witness log recorded.
    EventLog(sealed.lake).seal()
    assert any("no longer in the chain" in p for p in _problems(sealed.lake))


def test_deleted_schema_manifest_is_a_gap_even_after_start_up_rewrites_it(sealed):
    (schema,) = [p for p in _chained(sealed.lake) if json.loads(p.read_bytes()).get("schema")]
    schema.unlink()
    # A process starting afterwards re-creates the schema segments' manifest at a new seq; the old seq stays missing.
    from warehouse.commit import NumberedChain

    NumberedChain._by_key.clear()  # (this process's view of the chain still holds the deleted manifest)
    EventLog(sealed.lake)
    assert any(json.loads(p.read_bytes()).get("schema") for p in _chained(sealed.lake))
    assert any("missing between" in p for p in _problems(sealed.lake))


def test_deleted_wal_is_named(sealed):
    wal = sealed.wal_path
    wal.unlink()
    assert any(str(wal) in p and "missing" in p for p in _problems(sealed.lake))


def test_missing_referenced_blobs_are_named(sealed):
    response = sealed.blobs.path(sha256_hex(RESPONSE))
    image = sealed.blobs.path(sha256_hex(IMAGE))
    response.unlink()
    image.unlink()
    problems = _problems(sealed.lake)
    assert any(str(response) in p and "response_sha256" in p for p in problems)
    assert any(str(image) in p and "manuscript package" in p for p in problems)


def test_missing_blob_of_an_unsealed_event_is_named(lake):
    log = EventLog(lake)
    log.append(_call(log, "k"))  # in the WAL only
    request = log.blobs.path(sha256_hex(REQUEST))
    request.unlink()
    assert any(str(request) in p and "request_sha256" in p for p in _problems(lake))


def test_rewritten_manifest_is_named_by_its_successor(sealed):
    # A consistent forgery: change a segment AND the hash its manifest records; the file checks pass,
    # the chain does not.
    _, middle, _ = _range_manifests(sealed.lake)
    body = json.loads(middle.read_text())
    seg = sealed.lake.root / body["segments"][0]["path"]
    seg.write_bytes(seg.read_bytes() + b"forged")
    body["segments"][0]["sha256"] = sha256_hex(seg.read_bytes())
    middle.write_text(json.dumps(body, indent=1))
    problems = _problems(sealed.lake)
    assert any(f"{middle.name} was rewritten" in p for p in problems)
    assert not any("modified" in p for p in problems)  # the forgery fooled the per-file check


def test_rewritten_newest_manifest_is_named_by_the_head(sealed):
    newest = _range_manifests(sealed.lake)[-1]
    newest.write_text(newest.read_text().replace('"events": 1', '"events": 2'))
    assert any(newest.name in p and "not the one the chain head recorded" in p for p in _problems(sealed.lake))


def test_wal_edited_after_its_manifest_was_removed_is_named(sealed):
    _, middle, _ = _range_manifests(sealed.lake)
    stem = _range_stem(middle)
    middle.unlink()
    wal = sealed.wal_path
    data = wal.read_bytes()
    start, end = map(int, re.findall(r"-(\d{12})", stem))
    edited = data[start:end].replace(b"Paper 1", b"Paper X")  # same length: offsets stay valid
    assert edited != data[start:end]
    wal.write_bytes(data[:start] + edited + data[end:])
    problems = _problems(sealed.lake)
    # The orphan segments of that range no longer match the WAL bytes they were written from.
    assert any(str(wal) in p and "now hold other events" in p and stem in p for p in problems)


def test_reordered_manifests_are_named(sealed):
    first, middle, _ = _range_manifests(sealed.lake)
    a, b = first.read_bytes(), middle.read_bytes()
    first.write_bytes(b)
    middle.write_bytes(a)
    problems = _problems(sealed.lake)
    assert any(first.name in p and "swapped or reordered" in p for p in problems)
    assert any(middle.name in p and "swapped or reordered" in p for p in problems)


def test_a_head_published_earlier_is_extended_and_a_forged_one_is_not(lake):
    log = EventLog(lake)
    log.append(_paper(log, 0))
    log.seal()
    published = verify_lake(log).head
    log.append(_call(log, "k"))
    log.seal()
    later = verify_lake(log, extends=published.sha256)
    assert later.ok and later.extends_seq == published.seq
    assert later.head.seq == published.seq + 1  # one more seal, one more manifest
    forged = "0" * 64
    report = verify_lake(log, extends=forged)
    assert not report.ok and any(forged in p and "does not extend" in p for p in report.problems)


def test_a_published_head_fails_once_the_log_is_cut_back(lake):
    log = EventLog(lake)
    log.append(_paper(log, 0))
    log.seal()
    published = verify_lake(log).head
    (lake.manifests_dir / f"{published.manifest}.json").unlink()
    report = verify_lake(EventLog(lake), extends=published.sha256)
    assert any("does not extend" in p for p in report.problems)


def test_a_crash_between_manifest_and_head_is_a_warning_and_the_next_seal_repairs_it(lake, monkeypatch):
    from warehouse.commit import NumberedChain

    log = EventLog(lake)
    log.append(_paper(log, 0))
    monkeypatch.setattr(NumberedChain, "publish_head", lambda self: None)  # the process dies before moving the head
    log.seal()
    monkeypatch.undo()
    report = verify_lake(log)
    assert report.ok, report.problems
    assert any("past the chain head" in w for w in report.warnings)
    log.seal()  # nothing new to seal: adopts the manifest and moves the head
    report = verify_lake(log)
    assert report.ok and report.warnings == []


def _old_lake(lake: Lake, chained: bool = True) -> Path:
    """The `sealed` lake's events as the range-named layout wrote them (tests/warehouse/old_layout.py)."""
    from types import SimpleNamespace

    from tests.warehouse.old_layout import write_old_lake
    from warehouse.blobs import BlobStore, lake_store

    writer = SimpleNamespace(blobs=BlobStore(lake, lake_store(lake)))
    return write_old_lake(lake, [[_paper(writer, 0)], [_paper(writer, 1), _call(writer, "k1")],
                                 [_call(writer, "k2")]], chained)


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
    assert any(legacy.name in p and "rewritten after the chain started" in p for p in _problems(lake))


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
    log.append(dataclasses.replace(_paper(log, 9), pdf_sha256=sha256_hex(other)))  # never stored
    problems = _problems(lake)
    assert any(str(log.blobs.path(sha256_hex(other))) in p for p in problems)
    assert not any(str(pdf) in p for p in problems)


def test_a_lake_written_by_the_range_named_layout_reads_verifies_and_its_chain_continues(lake):
    _old_lake(lake)
    old = {p.name: p.read_bytes() for p in lake.manifests_dir.glob("*.json")}
    old_head = read_head(lake)
    log = EventLog(lake)
    assert {p.name for p in lake.manifests_dir.glob("*.json")} == set(old)  # start-up writes nothing
    assert sorted(e.paper_id for e in log.iter_events("paper_ingested")) == ["p0", "p1"]
    assert log.count("llm_call") == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert report.head == old_head and old_head.seq == 1 + len(EVENT_TYPES) + 3  # the old chain as it was

    log.append(_call(log, "k3"))
    assert log.seal().events_sealed == 1
    new = lake.manifests_dir / f"{old_head.seq + 1:012d}.json"  # the numbered chain continues after the old one
    assert json.loads(new.read_bytes())["prev_sha256"] == old_head.sha256
    assert {p.name: p.read_bytes() for p in lake.manifests_dir.glob("*.json") if p.name in old} == old  # unrewritten
    assert log.count("llm_call") == 3
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert report.head.seq == old_head.seq + 1 and read_head(lake) == report.head

    # Tampering with either part is named: the old part by its successor's link, the new part by the head.
    first, middle, last = _old_range_manifests(lake)
    middle.write_text(middle.read_text().replace('"events": 2', '"events": 5'))
    assert any(f"{middle.name} was rewritten" in p for p in _problems(lake))
    middle.write_bytes(old[middle.name])
    last.write_text(last.read_text().replace('"events": 1', '"events": 5'))
    assert any(f"{last.name} was rewritten" in p for p in _problems(lake))  # the link from old to new
    last.write_bytes(old[last.name])
    new.write_text(new.read_text().replace('"events": 1', '"events": 5'))
    assert any(new.name in p and "not the one the chain head recorded" in p for p in _problems(lake))
    new.write_text(new.read_text().replace('"events": 5', '"events": 1'))
    assert verify_lake(EventLog(lake)).ok
    seg = lake.root / json.loads(first.read_bytes())["segments"][0]["path"]
    data = seg.read_bytes()
    seg.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert any(str(seg) in p and "modified" in p for p in _problems(lake))
    seg.write_bytes(data)
    middle.unlink()
    assert any("missing between" in p and first.name in p and last.name in p for p in _problems(lake))


def test_an_interrupted_range_named_seal_is_committed_as_it_was_cut(lake):
    from warehouse.events import to_json_line

    wal = _old_lake(lake)
    log = EventLog(lake)
    start = wal.stat().st_size
    with open(wal, "ab") as fh:  # the old seal read these lines, wrote their segment and died
        fh.write(to_json_line(_paper(log, 5)))
    end = wal.stat().st_size
    orphan = lake.segments_dir / "event_type=paper_ingested" / f"{wal.stem}-{start:012d}-{end:012d}.parquet"
    (ev,) = EventLog._parse(wal.read_bytes()[start:end], wal.name, [])
    EventLog._write_parquet(orphan, PaperIngested, [ev])
    with open(wal, "ab") as fh:  # … and the writer went on: the next seal's range is longer than the orphan's
        fh.write(to_json_line(_paper(log, 6)))
    report = verify_lake(log)
    assert report.ok and any(str(orphan) in w and "`peerlake seal` commits them" in w for w in report.warnings)
    assert log.seal().events_sealed == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    committed = [seg["path"] for p in lake.manifests_dir.glob("0*.json")
                 for seg in json.loads(p.read_bytes())["segments"]]
    assert str(orphan.relative_to(lake.root)) in committed  # committed as it was cut


def test_a_lost_head_pointer_is_a_warning_and_the_next_seal_rewrites_it(sealed):
    sealed.lake.chain_head.unlink()
    report = verify_lake(sealed)
    assert report.ok and any("no chain head pointer" in w for w in report.warnings)
    sealed.seal()
    assert verify_lake(sealed).warnings == []


def _seal_repeatedly(root: str, tag: str) -> None:
    log = EventLog(Lake(Path(root)))  # start-up races to write the schema manifests, too
    for i in range(6):
        log.append(dataclasses.replace(_paper(log, i), paper_id=f"{tag}-{i}"))
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

def _forged_copy(src: Path, dst: Path) -> None:
    """`src`'s rows with new event ids and a thousand times the cost: what a forger drops into a partition."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(src)
    ids = pa.array([f"FORGED{i:020d}" for i in range(table.num_rows)])
    cost = pa.array([123.0] * table.num_rows, type=table.schema.field("cost_usd").type)
    table = table.set_column(table.schema.get_field_index("event_id"), "event_id", ids)
    pq.write_table(table.set_column(table.schema.get_field_index("cost_usd"), "cost_usd", cost), dst)


def test_a_forged_segment_under_a_name_of_its_own_fails_verify(sealed):
    seg = next(sealed.lake.segments_dir.glob("event_type=llm_call/01*.parquet"))
    forged = seg.with_name("forged.parquet")
    _forged_copy(seg, forged)
    problems = _problems(sealed.lake)
    assert any(str(forged) in p and "in no manifest" in p for p in problems)


def test_a_sealed_segment_copied_into_another_partition_fails_verify(sealed):
    # The copy holds exactly the WAL bytes it is named for, but those bytes are sealed already: read, it
    # would count every call twice. Not an interrupted seal, whatever its name says.
    newest = _range_manifests(sealed.lake)[-1]  # its range holds one call: the copy holds all its events
    seg = sealed.lake.segments_dir / "event_type=llm_call" / f"{_range_stem(newest)}.parquet"
    copy = sealed.lake.segments_dir / "event_type=llm_call_duplicated" / seg.name
    copy.write_bytes(seg.read_bytes())
    problems = _problems(sealed.lake)
    assert any(str(copy) in p and "not its next unsealed range" in p for p in problems)


def test_a_forged_segment_named_for_the_next_range_is_rewritten_by_the_seal_not_committed(sealed):
    import pyarrow.parquet as pq

    log = sealed
    log.append(_call(log, "k3"))  # in the WAL, not sealed yet
    start = log.sealed_offsets()[log.wal_path.name]
    end = log.wal_path.stat().st_size
    real = next(log.lake.segments_dir.glob("event_type=llm_call/01*.parquet"))  # one row, as the range
    forged = log.lake.segments_dir / "event_type=llm_call" / f"{log.wal_path.stem}-{start:012d}-{end:012d}.parquet"
    _forged_copy(real, forged)
    assert any(str(forged) in p and "now hold other events" in p for p in _problems(log.lake))
    log.seal()
    report = verify_lake(log)
    assert report.ok, report.problems
    (call,) = [e for e in log.iter_events("llm_call") if e.request_key == "k3"]
    assert call.cost_usd == 0.0 and [r["cost_usd"] for r in pq.read_table(forged).to_pylist()] == [0.0]


def _killed(*_):
    raise RuntimeError("killed before the manifest was written")


def test_an_interrupted_seal_overtaken_by_new_lines_is_committed_once(lake, monkeypatch):
    import warehouse.commit as numbered

    log = EventLog(lake)
    log.append(_paper(log, 0))
    monkeypatch.setattr(numbered, "after_staging", _killed)
    with pytest.raises(RuntimeError):
        log.seal()  # the segment is staged, its manifest is not written
    monkeypatch.undo()
    (orphan,) = (lake.events / "staging").glob("*.parquet")
    assert not list(lake.segments_dir.glob("event_type=paper_ingested/01*.parquet"))  # dbt sees nothing of it
    log.append(_paper(log, 1))  # the writer went on: the next seal's range is longer than the orphan's
    report = verify_lake(log)
    assert report.ok and any(orphan.name in w and "in no manifest" in w for w in report.warnings)
    assert log.seal().events_sealed == 2
    report = verify_lake(log)
    assert report.ok and report.warnings == [], (report.problems, report.warnings)
    assert not orphan.exists() and len(list(log.iter_events("paper_ingested"))) == 2


# ---- the chain checked against its heads (issue 23 §4) ---------------------------------------------------

def _rechain(lake: Lake, edit=None) -> None:
    """Apply `edit(bodies)` (a list of the chained manifests' bodies in seq order, changed in place), then
    re-link every manifest from the first changed one on and point the head at the end: a forger who
    knows how the chain works."""
    files = _chained(lake)
    bodies = [json.loads(p.read_bytes()) for p in files]
    stems = [p.stem for p in files]
    if edit is not None:
        stems = edit(bodies, stems) or stems
    prev = None
    for stem, body, old in zip(stems, bodies, files, strict=True):
        body["prev_sha256"] = prev
        data = manifest_bytes(body)
        if data != old.read_bytes() or stem != old.stem:
            (lake.manifests_dir / f"{stem}.json").write_bytes(data)
        prev = sha256_hex(data)
    lake.chain_head.write_bytes(Link(bodies[-1]["seq"], prev, stems[-1]).to_json())


@pytest.fixture
def two_writers(sealed) -> EventLog:
    """`sealed`, then a second writer's WAL (another process) sealed in its own manifest, the newest."""
    from ulid import ULID

    from warehouse.events import to_json_line

    other = sealed.lake.wal_dir / f"{ULID()}-otherhost-4242.jsonl"
    other.write_bytes(to_json_line(_call(sealed, "k9")))
    sealed.seal()
    return sealed


def _no_witness(lake: Lake) -> None:
    lake.head_witness.unlink()


def _assert_caught_with_a_head_and_warned_without(lake: Lake, tamper, published: str) -> None:
    """Tamper; with the witness log, verify fails naming it and `--head` fails too; without either it passes
    (the chain agrees with itself) but warns that it had no head to check against."""
    tamper()
    report = verify_lake(EventLog(lake))
    assert any(str(lake.head_witness) in p and "no longer in the chain" in p for p in report.problems), report.problems
    assert not verify_lake(EventLog(lake), extends=published).ok
    witness = lake.head_witness.read_bytes()
    _no_witness(lake)
    report = verify_lake(EventLog(lake))
    assert any("no head to check against" in w for w in report.warnings)
    assert report.ok, report.problems  # what cannot be detected without a head, as the docs say
    lake.head_witness.write_bytes(witness)


def test_a_rewritten_newest_manifest_with_its_head_is_caught_against_a_recorded_head(sealed):
    lake = sealed.lake
    newest = _range_manifests(lake)[-1]
    published = verify_lake(sealed).head.sha256

    def tamper():
        _rechain(lake, lambda bodies, stems: bodies[-1].update(events=7))
        assert read_head(lake).sha256 != published  # the head pointer was rewritten to match

    _assert_caught_with_a_head_and_warned_without(lake, tamper, published)
    assert newest.exists()


def test_a_re_chained_middle_manifest_is_caught_against_a_recorded_head(sealed):
    lake = sealed.lake
    _, middle, _ = _range_manifests(lake)
    published = verify_lake(sealed).head.sha256

    def tamper():
        def forge(bodies, stems):
            # A consistent forgery: a segment changed AND the hash its manifest records, then the chain re-linked.
            body = bodies[stems.index(middle.stem)]
            seg = lake.root / body["segments"][0]["path"]
            _forged_copy(seg, seg)  # a valid segment, other rows
            body["segments"] = [{**body["segments"][0], "sha256": sha256_hex(seg.read_bytes())},
                                *body["segments"][1:]]
        _rechain(lake, forge)

    _assert_caught_with_a_head_and_warned_without(lake, tamper, published)


def test_two_reordered_and_re_linked_manifests_are_caught_against_a_recorded_head(two_writers):
    lake = two_writers.lake
    published = verify_lake(two_writers).head.sha256

    def tamper():
        def swap(bodies, stems):
            # The last range of the first writer and the second writer's range change places in the chain.
            # Numbered files are named by seq, so each keeps its name and takes the other's record.
            a, b = len(bodies) - 2, len(bodies) - 1
            bodies[a]["seq"], bodies[b]["seq"] = bodies[b]["seq"], bodies[a]["seq"]
            bodies[a], bodies[b] = bodies[b], bodies[a]
        _rechain(lake, swap)

    _assert_caught_with_a_head_and_warned_without(lake, tamper, published)


def test_a_chain_cut_back_by_one_with_its_segments_and_wal_is_caught_against_a_recorded_head(two_writers):
    lake = two_writers.lake
    published = verify_lake(two_writers).head.sha256
    newest = max(lake.manifests_dir.glob("*.json"), key=lambda p: json.loads(p.read_text())["seq"])
    body = json.loads(newest.read_text())
    assert "otherhost" in body["wal"]  # the second writer's only range: no hole left in any other WAL

    def tamper():
        newest.unlink()
        for seg in body["segments"]:
            (lake.root / seg["path"]).unlink()
        (lake.wal_dir / body["wal"]).unlink()
        tip = _chained(lake)[-1]
        lake.chain_head.write_bytes(Link(json.loads(tip.read_bytes())["seq"], sha256_hex(tip.read_bytes()),
                                         tip.stem).to_json())
        assert verify_lake(EventLog(lake)).head.seq == body["seq"] - 1

    _assert_caught_with_a_head_and_warned_without(lake, tamper, published)


def test_a_clean_lake_has_a_witness_of_every_head_it_moved_to(sealed):
    from warehouse import heads

    recorded, bad = heads.read(sealed.lake)
    report = verify_lake(sealed)
    assert bad == [] and recorded[-1].sha256 == report.head.sha256 == sealed.head().sha256
    assert [r.seq for r in recorded] == sorted({r.seq for r in recorded})  # one line per head, in order


@pytest.mark.parametrize("name", ["/etc/passwd", "../../x", "ab", "A" * 64])
def test_a_forged_blob_name_is_never_a_path(lake, name):
    # An event is data from a file someone else wrote: its hash fields must not reach the file system.
    log = EventLog(lake)
    log.append(dataclasses.replace(_paper(log, 0), pdf_sha256=name))
    log.seal()
    assert not log.blobs.exists(name)
    with pytest.raises(BlobCorrupted, match="not a blob name"):
        log.blobs.get(name)
    assert any("pdf_sha256" in p and "not a blob name" in p for p in _problems(lake))
