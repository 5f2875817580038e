"""A stop (the first Ctrl-C) abandons a hosted call in flight within about a second instead of waiting for
its answer: nothing is recorded for it and the next run makes it; an answer that came before the stop is
recorded and replays. Against the loopback server, whose scripted replies take 30 s."""

import threading
import time

import pytest

from peerlake.llm_calls.stopping import CallsStopped, clear_stop, request_stop
from tests.doubles.fake_server import Reply
from tests.llm_calls.support import llm_events, request

SLOW_S = 30.0
STOPPED_AT: list[float] = []  # when each test's stop was asked (monotonic)
MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-6", "gemini": "gemini-2.5-flash-lite"}


@pytest.fixture(autouse=True)
def _no_stop_left():
    clear_stop()
    yield
    clear_stop()


def _stop_once_in_flight(server, n: int = 1, after_s: float = 0.5) -> None:
    """Ask to stop `after_s` after the server holds `n` requests (a stop before one is sent proves nothing)."""
    def wait_then_stop() -> None:
        deadline = time.monotonic() + 60
        while server.in_flight < n and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(after_s)
        STOPPED_AT.append(time.monotonic())
        request_stop()
    threading.Thread(target=wait_then_stop, daemon=True).start()


def _req(provider: str, **kw):
    params = {"max_tokens": 50} if provider != "openai" else {"temperature": 0.7, "max_tokens": 50}
    return request(provider, MODELS[provider], params=params, **kw)


@pytest.mark.parametrize("provider", sorted(MODELS))
def test_a_stop_abandons_a_30s_hosted_call_records_nothing_and_the_next_run_makes_it(make_gateway, server,
                                                                                      lake_log, provider):
    gw = make_gateway(timeout_s=60.0)
    server.script(Reply(delay_s=SLOW_S))
    _stop_once_in_flight(server)
    with pytest.raises(CallsStopped, match="abandoned in flight"):
        gw.call(_req(provider))
    took = time.monotonic() - STOPPED_AT[-1]
    assert took < 2.0, f"the stop took {took:.1f} s to end a {SLOW_S:.0f} s call"
    assert server.requests == 1 and llm_events(lake_log) == []  # sent, and nothing half-done recorded

    clear_stop()  # the next run
    again = make_gateway(timeout_s=60.0).call(_req(provider))
    assert not again.replayed and server.requests == 2
    assert [e.status for e in llm_events(lake_log)] == ["ok"]


def test_an_answer_that_came_before_the_stop_is_recorded_and_replays_next_time(make_gateway, server, lake_log):
    gw = make_gateway(max_concurrency=2, timeout_s=60.0)
    server.script(Reply(delay_s=0.2), Reply(delay_s=SLOW_S))  # whichever request comes first is answered
    reqs = [_req("openai", sample_index=i) for i in range(2)]
    _stop_once_in_flight(server, after_s=1.0)  # the 0.2 s one is answered by then
    with pytest.raises(CallsStopped):
        gw.call_many(reqs, progress=False)
    assert time.monotonic() - STOPPED_AT[-1] < 2.0
    (answered,) = llm_events(lake_log)
    assert answered.status == "ok" and server.requests == 2

    clear_stop()
    results = make_gateway(timeout_s=60.0).call_many(reqs, progress=False)
    assert server.requests == 3  # only the abandoned call is made again: the answered one is not paid twice
    assert sorted(r.replayed for r in results) == [False, True]
    assert next(r for r in results if r.replayed).request_key == answered.request_key
    assert len(llm_events(lake_log)) == 2


def test_a_self_hosted_call_in_flight_still_finishes_and_is_recorded(make_gateway, server, lake_log):
    """openai_compatible keeps the old contract (a self-hosted server's call in flight finishes)."""
    gw = make_gateway(timeout_s=60.0)
    server.script(Reply(delay_s=2.0))
    _stop_once_in_flight(server)
    result = gw.call(request("openai_compatible", "fake-reviewer"))
    assert not result.replayed and [e.status for e in llm_events(lake_log)] == ["ok"]
