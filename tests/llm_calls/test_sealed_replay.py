"""Replay reads the sealed Parquet segments too: a write-ahead file lost after a seal costs nothing."""

import duckdb

from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.log import EventLog
from tests.llm_calls.support import providers_for, request

N = 6


def test_lost_wal_after_seal_replays_the_batch_without_paying(lake_log, server):
    batch = [request(sample_index=i) for i in range(N)]
    first = Gateway(lake_log, providers=providers_for(server)).call_many(batch, progress=False)
    assert lake_log.seal().events_sealed == N + 1  # N calls + the price table they were priced with
    for wal in lake_log.wal_files():
        wal.unlink()  # the soak's failure: the first copy is gone, the sealed copy remains
    again = Gateway(EventLog(lake_log.lake), providers=providers_for(server)).call_many(batch, progress=False)
    assert server.requests == N  # the old index (WAL only) paid all N again
    assert all(r.replayed for r in again)
    assert [r.text for r in again] == [r.text for r in first]
    # And the ledger did not grow: one sealed success per key; the only new event counts the replays.
    assert EventLog(lake_log.lake).seal().events_sealed == 1
    (replayed,) = EventLog(lake_log.lake).iter_events("calls_replayed")
    assert replayed.n == N and replayed.door == "llm"
    glob = lake_log.lake.segment_glob("llm_call")
    per_key = duckdb.sql(f"select request_key, count(*) from read_parquet('{glob}', union_by_name=true) "
                         "where status = 'ok' group by 1").fetchall()
    assert len(per_key) == N and {n for _, n in per_key} == {1}


def test_attempt_numbering_continues_from_sealed_events(lake_log, server):
    from tests.doubles.fake_server import Reply

    server.script(Reply(status=500))
    Gateway(lake_log, providers=providers_for(server), backoff_base_s=0.01, max_attempts=1)\
        .call_many([request()], progress=False, return_exceptions=True)
    lake_log.seal()
    for wal in lake_log.wal_files():
        wal.unlink()
    Gateway(EventLog(lake_log.lake), providers=providers_for(server)).call(request())
    attempts = sorted(e.attempt for e in EventLog(lake_log.lake).iter_events("llm_call"))
    assert attempts == [1, 2]
