import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

from peerlake.warehouse import EventLog, Lake, PaperIngested
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.verify import verify_lake

REPO = Path(__file__).resolve().parents[2]
# The blob the test papers name as PDF and package: verify checks that every named blob exists.
MANUSCRIPT = b"a manuscript"
MANUSCRIPT_SHA = sha256_hex(MANUSCRIPT)


def _paper(i: int) -> PaperIngested:
    return PaperIngested(paper_id=f"p{i}", title=f"Paper {i}", source_uri=f"file:///p{i}.pdf",
                         pdf_sha256=MANUSCRIPT_SHA, package_sha256=MANUSCRIPT_SHA, n_pages=1,
                         n_text_records=3, n_chars=100 + i)


def _count(lake: Lake, event_type: str) -> int:
    return duckdb.connect().execute(f"select count(*) from read_parquet('{lake.segment_glob(event_type)}', "
                      "union_by_name=true)").fetchone()[0]


def test_events_round_trip_through_sealed_parquet(lake):
    log = EventLog(lake)
    events = [_paper(i) for i in range(5)]
    log.append_many(events)
    report = log.seal()
    assert report.events_sealed == 5
    rows = duckdb.sql(f"select event_id, paper_id, n_chars, event_type from read_parquet("
                      f"'{lake.segment_glob('paper_ingested')}', union_by_name=true, hive_partitioning=true) "
                      "order by paper_id").fetchall()
    assert [r[0] for r in rows] == [e.event_id for e in events]
    assert rows[3][2] == 103 and rows[0][3] == "paper_ingested"
    # Sealing again writes nothing new: segments are never rewritten or duplicated.
    assert log.seal().events_sealed == 0
    assert _count(lake, "paper_ingested") == 5


def test_empty_event_types_still_have_a_readable_schema(lake):
    EventLog(lake)
    assert _count(lake, "llm_call") == 0
    cols = duckdb.sql(f"describe select * from read_parquet('{lake.segment_glob('llm_call')}')").fetchall()
    assert "request_key" in {c[0] for c in cols}


def test_torn_last_line_is_not_sealed_and_the_rest_is(lake):
    log = EventLog(lake)
    log.append_many([_paper(1), _paper(2)])
    with open(log.wal_path, "ab") as fh:  # what a kill -9 mid-write leaves behind
        fh.write(b'{"event_type":"paper_ingested","event":{"paper_id":"half')
    assert log.seal().events_sealed == 2
    assert len(list(log.iter_events("paper_ingested"))) == 2


def test_interrupted_seal_is_committed_once_without_duplicates(lake, monkeypatch):
    log = EventLog(lake)
    log.append_many([_paper(i) for i in range(3)])
    import peerlake.warehouse.commit as numbered  # segments are staged, then the manifest (the commit point)

    def crash(*a, **k):
        raise RuntimeError("crash before manifest commit")

    monkeypatch.setattr(numbered, "after_staging", crash)
    with pytest.raises(RuntimeError):
        log.seal()
    monkeypatch.undo()
    (staged,) = (lake.events / "staging").glob("*.parquet")  # never read: dbt globs events/segments/ only
    assert not list(lake.segments_dir.glob("event_type=paper_ingested/01*.parquet"))
    assert any("no manifest" in w for w in verify_lake(EventLog(lake)).warnings)
    report = EventLog(lake).seal()
    assert report.events_sealed == 3
    (seg,) = lake.segments_dir.glob("event_type=paper_ingested/01*.parquet")
    assert sha256_hex(seg.read_bytes()) == staged.stem  # the range sealed again is the interrupted seal's bytes
    assert _count(lake, "paper_ingested") == 3
    assert verify_lake(EventLog(lake)).warnings == []


def test_verify_passes_then_names_a_tampered_segment(lake):
    log = EventLog(lake)
    log.append_many([_paper(i) for i in range(3)])
    log.blobs.put(MANUSCRIPT)
    log.seal()
    report = verify_lake(log)
    assert report.ok and report.checked_segments >= 4 and report.checked_blobs == 1
    seg = next(p for p in lake.segments_dir.rglob("*.parquet") if "schema" not in p.name)
    data = bytearray(seg.read_bytes())
    data[len(data) // 2] ^= 0x01
    seg.write_bytes(bytes(data))
    report = verify_lake(log)
    assert not report.ok
    assert any(seg.name in p and "modified" in p for p in report.problems)


def test_verify_names_a_tampered_blob_and_wal(lake):
    log = EventLog(lake)
    log.append(_paper(1))
    sha = log.blobs.put(b"response body")
    log.seal()
    log.blobs.path(sha).write_bytes(b"response bodY")
    with open(log.wal_path, "r+b") as fh:
        fh.seek(10)
        fh.write(b"X")
    problems = verify_lake(log).problems
    assert any(sha in p for p in problems)
    assert any("write-ahead" in p and "changed" in p for p in problems)


def _writer(root: str, n: int, tag: str) -> None:
    log = EventLog(Lake(Path(root)))
    for i in range(n):
        log.append(PaperIngested(paper_id=f"{tag}-{i}", title="t", source_uri="u", pdf_sha256=MANUSCRIPT_SHA,
                                 package_sha256=MANUSCRIPT_SHA, n_pages=1, n_text_records=1, n_chars=i))
        if i % 50 == 0:
            log.seal()  # sealing while the other process appends must be safe


def test_two_concurrent_writer_processes_lose_and_duplicate_nothing(lake):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(lake.root), 300, tag)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    EventLog(lake).seal()
    rows = duckdb.sql(f"select paper_id, count(*) c from read_parquet('{lake.segment_glob('paper_ingested')}',"
                      " union_by_name=true) group by all").fetchall()
    assert len(rows) == 600
    assert all(c == 1 for _, c in rows)
    EventLog(lake).blobs.put(MANUSCRIPT)
    assert verify_lake(EventLog(lake)).ok


def test_events_survive_kill_9_of_the_writer(lake):
    # The child appends events and prints each id only after append() returns (the durability
    # promise); we kill -9 it mid-stream and every printed id must be in the log.
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from peerlake.warehouse import EventLog, Lake, PaperIngested
        log = EventLog(Lake(Path({str(lake.root)!r})))
        i = 0
        while True:
            ev = PaperIngested(paper_id=f"k{{i}}", title="t" * 2000, source_uri="u", pdf_sha256="a",
                               package_sha256="b", n_pages=1, n_text_records=1, n_chars=i)
            log.append(ev)
            print(ev.event_id, flush=True)
            i += 1
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    acked = []
    deadline = time.time() + 30
    while len(acked) < 200 and time.time() < deadline:
        acked.append(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acked = [a for a in acked if a]
    assert len(acked) >= 200
    log = EventLog(lake)
    ids = {e.event_id for e in log.iter_events("paper_ingested")}
    assert set(acked) <= ids
    log.seal()
    assert _count(lake, "paper_ingested") == len(ids)
