"""The call progress counts what its own batch made and replayed, agrees with "done" on every line, and
reports without a terminal from the batch's first second (plain lines, a heartbeat while calls are slow)."""

import io
import re

import pytest

from peerlake.llm_calls import progress
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.stopping import CallsStopped, clear_stop, request_stop
from peerlake.warehouse.attribution import attributed
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for, request

LINE = re.compile(r"(?P<done>\d+)/(?P<total>\d+) · .* · made (?P<made>\d+) · replayed (?P<replayed>\d+)")


@pytest.fixture
def gateway(lake, monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    with FakeLlmServer() as server:
        yield Gateway(EventLog(lake), providers=providers_for(server), max_concurrency=2), server


@pytest.fixture
def lines():
    out = io.StringIO()
    progress.show_progress_on(out)
    yield out
    progress.show_progress_on(None)
    clear_stop()


def _counts(text: str) -> list[tuple[int, int, int, int]]:
    return [tuple(int(m[k]) for k in ("done", "total", "made", "replayed")) for m in LINE.finditer(text)]


def test_a_batch_counts_its_own_calls_made_and_replayed_on_every_line(gateway, lines):
    gw, server = gateway
    gw.call_many([request(sample_index=i) for i in range(7)], progress=False)  # an earlier run's answers
    gw.call_many([request(sample_index=i) for i in range(12)], description="reviews")
    text = lines.getvalue()
    assert "reviews: 12 calls: 5 new, 7 in the log" in text
    assert "reviews: call 1 of 5 started" in text
    counts = _counts(text)
    assert counts[-1] == (12, 12, 5, 7) and server.requests == 12
    # replays finish first, in threads, while the first result is being taken: the old count (the gateway's
    # running totals) said "1/12 … replayed 7"; a line's made + replayed is its done, never more
    assert all(made + replayed == done for done, _, made, replayed in counts), counts


def test_a_replay_of_a_call_this_run_made_counts_as_made(gateway, lines):
    """A step retried after its first attempt made the call replays it: the run still made it."""
    gw, server = gateway
    with attributed(dagster_run_id="run-1"):
        gw.call_many([request(sample_index=0)], progress=False)  # the first attempt
        gw.call_many([request(sample_index=0), request(sample_index=1)], description="retry")
    assert _counts(lines.getvalue())[-1] == (2, 2, 2, 0) and server.requests == 2
    with attributed(dagster_run_id="run-2"):  # another run: a replay
        gw.call_many([request(sample_index=0)], description="rerun")
    assert _counts(lines.getvalue())[-1] == (1, 1, 0, 1)


def test_plain_lines_keep_coming_while_a_slow_call_is_in_flight(gateway, lines, monkeypatch):
    gw, server = gateway
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.5)
    server.delay_s = 2.5
    gw.call_many([request(sample_index=0)], description="slow")
    beats = [line for line in lines.getvalue().splitlines() if line.startswith("slow: 0/1")]
    assert len(beats) >= 2 and "1 in flight" in beats[0], lines.getvalue()


def test_after_a_stop_no_new_call_starts_and_the_answers_stay_recorded(gateway, lines):
    gw, server = gateway
    gw.call_many([request(sample_index=0)], progress=False)
    request_stop()
    with pytest.raises(CallsStopped):
        gw.call_many([request(sample_index=i) for i in range(3)], description="stopped")
    assert server.requests == 1  # the recorded one replayed; the two new ones never left
    assert gw.call_many([request(sample_index=0)], progress=False)[0].replayed  # replays go on after a stop
    clear_stop()
    gw.call_many([request(sample_index=i) for i in range(3)], progress=False)
    assert server.requests == 3
