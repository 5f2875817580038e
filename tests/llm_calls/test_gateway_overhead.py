"""The gateway's per-call recording overlaps other calls without loosening what it promises:
at most max_concurrency requests in flight, a refresh that sees every earlier event, replay."""

import threading
import time

from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.attribution import attributed
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import providers_for, request


def _reqs(n: int, tag: str = "o"):
    return [request(sample_index=i, subject_id=f"{tag}-{i}") for i in range(n)]


def test_recording_overlaps_calls_and_in_flight_stays_bounded(lake_log):
    k = 3
    with FakeLlmServer(delay_s=0.1) as srv:
        gw = Gateway(lake_log, providers=providers_for(srv), max_concurrency=k)
        seen_in_flight: list[int] = []
        real_append = gw.log.append

        def slow_append(ev):
            # What the server has in flight while this worker records its answer (a slow disk), read midway:
            # the worker that took the freed slot needs a moment (a thread, a connection) to reach the server,
            # and on a loaded machine a read at the very start of the recording could come before it.
            time.sleep(0.02)
            seen_in_flight.append(srv.in_flight)
            time.sleep(0.02)
            return real_append(ev)

        gw.log.append = slow_append
        results = gw.call_many(_reqs(12), progress=False)
    assert srv.max_in_flight == k  # never more than max_concurrency at the provider
    assert srv.requests == 12 and gw.stats.calls_made == 12
    assert not any(r.replayed for r in results)
    # With one thread per slot a recording worker holds no request, so at most k-1 would be seen;
    # the extra workers keep every slot busy meanwhile.
    assert max(seen_in_flight) == k


def test_one_worker_per_slot_under_a_cost_cap_or_with_one_slot(make_gateway):
    gw = make_gateway(max_concurrency=3)
    assert gw._workers() == 6
    with attributed(dagster_run_id="run-1", max_cost_usd=5.0):
        assert gw._workers() == 3
    assert make_gateway(max_concurrency=3, max_cost_usd=5.0)._workers() == 3
    assert make_gateway(max_concurrency=1)._workers() == 1  # one slot: calls in input order


def test_threads_asking_at_once_share_a_refresh(make_gateway):
    gw = make_gateway()
    tails = [0]
    real_tail = gw._reader.tail

    def slow_tail(*a, **kw):
        tails[0] += 1
        time.sleep(0.05)  # a long read of the log: the other threads ask meanwhile
        return real_tail(*a, **kw)

    gw._reader.tail = slow_tail
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        gw._refresh()

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert 1 <= tails[0] <= 4, tails[0]  # one running + one for all who came during it (+ stragglers)


def test_shared_refreshes_see_every_answer_recorded_before_the_call(lake_log, server):
    """Another gateway (standing in for another process) answers each request just before this one
    asks, from many threads at once: every ask must replay, so no shared refresh missed an event."""
    other = Gateway(EventLog(lake_log.lake), providers=providers_for(server))
    gw = Gateway(lake_log, providers=providers_for(server))
    reqs = _reqs(24, "r")
    replayed: list[bool] = []

    def worker(chunk) -> None:
        for req in chunk:
            other.call(req)
            replayed.append(gw.call(req).replayed)

    threads = [threading.Thread(target=worker, args=(reqs[i::8],)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert replayed == [True] * len(reqs)
    assert server.requests == len(reqs)  # each paid once, by the other gateway
    assert gw.stats.calls_made == 0
