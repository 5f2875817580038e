"""Group commit: threads appending at once share fsyncs, and each append still returns durable."""

import os
import threading
import time
from pathlib import Path

from peerlake.warehouse import EventLog, PaperIngested
from peerlake.warehouse.blobs import BlobStore, sha256_hex
from peerlake.warehouse.log import _WalWriter

THREADS = 16
PER_THREAD = 25


def _paper(tag: str) -> PaperIngested:
    return PaperIngested(paper_id=tag, title=f"Paper {tag}", source_uri="u", pdf_sha256="a",
                         package_sha256="b", n_pages=1, n_text_records=1, n_chars=1)


def test_concurrent_appends_share_fsyncs_and_each_returns_durable(lake, monkeypatch):
    log = EventLog(lake)
    writer = _WalWriter.for_lake(lake)
    wal_fd = writer.fd
    synced_size: list[int] = [0]  # WAL bytes known durable: what an fsync of the WAL covered
    wal_fsyncs = [0]
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        if fd == wal_fd:
            size = os.fstat(fd).st_size  # the bytes this fsync covers were written before it started
            time.sleep(0.003)  # a disk's flush: long enough for other threads to queue behind it
            real_fsync(fd)
            wal_fsyncs[0] += 1
            synced_size[0] = max(synced_size[0], size)
        else:
            real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    not_durable: list[str] = []

    def worker(t: int) -> None:
        for i in range(PER_THREAD):
            ev = _paper(f"t{t}-{i}")
            log.append(ev)
            # The promise: when append returns, its line lies within what an fsync covered.
            data = Path(writer.path).read_bytes()[:synced_size[0]]
            if ev.event_id.encode() not in data:
                not_durable.append(ev.event_id)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    before = writer.fsyncs
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    appends = THREADS * PER_THREAD
    assert not not_durable
    assert writer.fsyncs - before == wal_fsyncs[0]
    assert wal_fsyncs[0] < appends / 2, f"{wal_fsyncs[0]} fsyncs for {appends} appends: not grouped"
    ids = [e.paper_id for e in EventLog(lake).iter_events("paper_ingested")]
    assert sorted(ids) == sorted(f"t{t}-{i}" for t in range(THREADS) for i in range(PER_THREAD))


def test_a_removed_wal_is_replaced_under_concurrent_appends(lake):
    log = EventLog(lake)
    log.append(_paper("first"))
    first = log.wal_path
    stop = threading.Event()
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        i = 0
        try:
            while not stop.is_set():
                log.append(_paper(f"r{t}-{i}"))
                i += 1
        except BaseException as exc:  # any failure of an append is the finding
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    time.sleep(0.05)
    first.unlink()  # an operator deleting the file while writers append: they must switch files
    time.sleep(0.05)
    stop.set()
    for th in threads:
        th.join(10)
    assert not errors
    assert log.wal_path != first and log.wal_path.exists()
    log.append(_paper("last"))
    assert "last" in {e.paper_id for e in EventLog(lake).iter_events("paper_ingested")}


def test_concurrent_puts_of_blobs_are_all_readable(lake):
    store = BlobStore(lake)
    payloads = [f"blob {i}".encode() * 50 for i in range(40)] * 2  # each twice: same name, same bytes
    shas: list[str] = []

    def worker(chunk: list[bytes]) -> None:
        shas.extend(store.put(p) for p in chunk)

    threads = [threading.Thread(target=worker, args=(payloads[k::8],)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert sorted(shas) == sorted(sha256_hex(p) for p in payloads)
    assert all(store.get(sha256_hex(p)) == p for p in payloads)
    assert not [p for p in lake.blobs_dir.rglob("*") if p.name.endswith(".tmp")]
