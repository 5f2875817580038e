"""Expected call times from the lake's history or a stated prior, a plan's wall time, and a batch's ETA that
starts from the expectation, learns from the calls as they finish and comes down while waiting. Every
expected number is worked out by hand in the comment beside it."""

import io
import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from peerlake.llm_calls import progress
from peerlake.llm_calls.progress import Counts
from peerlake.llm_calls.throughput import (
    HOSTED_PRIOR_S,
    Expected,
    Planned,
    Throughput,
    load_throughput,
    wall_time_s,
)
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse.events import LlmCall
from tests.doubles.fake_server import Reply
from tests.llm_calls.support import request

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LOCAL = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def _ev(provider: str, model: str, latency_s: float, end_s: float, *, template: str | None = "t",
        run: str | None = "run-1", status: str = "ok", batch_id: str | None = None, n: list = [0]) -> LlmCall:  # noqa: B006
    n[0] += 1
    return LlmCall(occurred_at=T0 + timedelta(seconds=end_s), request_key=f"k{n[0]}", prompt_template=template,
                   prompt_hash=None, reviewer_config="c", purpose="review", subject_id="p", sample_index=0,
                   provider=provider, model=model, params_json="{}", request_sha256="0" * 64, response_sha256=None,
                   response_text="{}", finish_reason="stop", input_tokens=1, cached_input_tokens=0,
                   cache_write_tokens=0, output_tokens=1, reasoning_tokens=0, cost_usd=0.0, cost_status="free",
                   price_table_version="v", latency_ms=latency_s * 1000, attempt=1, status=status,
                   dagster_run_id=run, batch_id=batch_id)


def _fed(*events: LlmCall) -> Throughput:
    t = Throughput()
    for ev in events:
        t.note(ev)
    return t


# ---- expected seconds of one call ---------------------------------------------------------------
def test_the_prior_of_an_embedded_call_reads_the_prompt_and_writes_the_whole_answer_budget():
    t = Throughput()
    # 3,656 characters = 914 tokens at 4 a token, read at 91.4 tokens/s: 10 s; 227 tokens written at 22.7/s: 10 s
    assert t.expected("local", LOCAL, input_chars=3656, max_output=227) == Expected(pytest.approx(20.0), "prior")
    req = LlmRequest("local", LOCAL, ({"role": "user", "content": "x" * 3656},), params={"max_tokens": 227})
    assert t.expected_for(req).seconds == pytest.approx(20.0)
    # the 0.5B model: 914 / 185.8 + 227 / 39.7
    assert t.expected("local", "qwen2.5-coder-0.5b-instruct-q4_k_m", input_chars=3656, max_output=227).seconds \
        == pytest.approx(914 / 185.8 + 227 / 39.7)
    assert t.expected("openai", "gpt-4.1-mini").seconds == HOSTED_PRIOR_S == 5.0


def test_history_is_the_mean_latency_per_template_then_per_model_else_the_prior():
    t = _fed(_ev("openai", "m", 2, 10), _ev("openai", "m", 4, 20), _ev("openai", "m", 6, 30),
             _ev("openai", "m", 9, 40, template="u"),
             _ev("openai", "m", 100, 50, batch_id="b1"),  # a provider batch's answer: its wait is not a call's
             _ev("openai", "m", 100, 60, status="error"),  # a failed attempt is not an answer's time
             _ev("anthropic", "c", 1, 10), _ev("anthropic", "c", 3, 20))
    assert t.expected("openai", "m", "t") == Expected(pytest.approx(4.0), "history:3")  # (2 + 4 + 6) / 3
    assert t.expected("openai", "m", "u") == Expected(pytest.approx(5.25), "history:4")  # (2+4+6+9)/4: the model's
    assert t.expected("anthropic", "c", "t") == Expected(5.0, "prior")  # two calls are too few


def test_an_embedded_call_that_waited_for_the_model_counts_from_the_answer_before_it():
    # three local calls of one run started at 0, 0 and 1 s with two slots, answered one at a time at 10, 18, 26 s:
    # latencies 10, 18, 25, but the model worked 10, 18 - 10 = 8 and 26 - 18 = 8 s on them
    t = _fed(_ev("local", LOCAL, 10, 10), _ev("local", LOCAL, 18, 18), _ev("local", LOCAL, 25, 26),
             _ev("local", LOCAL, 12, 1000, run="run-2"))  # another run, long after: its whole latency
    assert t.expected("local", LOCAL, "t").seconds == pytest.approx((10 + 8 + 8 + 12) / 4)
    hosted = _fed(_ev("openai", "m", 10, 10), _ev("openai", "m", 18, 18), _ev("openai", "m", 25, 26))
    assert hosted.expected("openai", "m", "t").seconds == pytest.approx((10 + 18 + 25) / 3)  # ran side by side


def test_a_plans_wall_time_spreads_each_providers_calls_over_what_runs_at_once():
    t = _fed(*(_ev("openai", "m", s, 10 * s) for s in (3, 4, 5)))  # 4 s a call
    plan = [Planned("openai", "m", "t", calls=10),  # 10 × 4 s, 4 at a time: 10 s
            Planned("local", LOCAL, "t", calls=3, input_chars=3656, max_output=227)]  # 3 × 20 s, one at a time: 60 s
    assert wall_time_s(t, plan, concurrency=4) == pytest.approx(70.0)
    req = LlmRequest("local", LOCAL, ({"role": "user", "content": "x" * 3656},), params={"max_tokens": 227})
    assert wall_time_s(t, [req, req], concurrency=4) == pytest.approx(40.0)


def test_the_gateway_reads_the_lakes_call_times_and_keeps_them_fresh(make_gateway, server, lake_log):
    server.script(*[Reply(delay_s=0.3)] * 3)
    reqs = [request(sample_index=i) for i in range(3)]
    make_gateway(max_concurrency=1).call_many(reqs, progress=False)
    measured = [e.latency_ms / 1000 for e in lake_log.iter_events("llm_call")]
    fresh = make_gateway().throughput().expected_for(reqs[0])  # a new gateway: read from the log
    assert fresh.basis == "history:3" and fresh.seconds == pytest.approx(sum(measured) / 3)
    assert min(measured) >= 0.3
    assert load_throughput(lake_log).expected_for(reqs[0]) == fresh


# ---- a batch's ETA ------------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Req:
    def __init__(self, key: str):
        self.request_key, self.provider, self.model = key, "p", "m"


class Result:
    def __init__(self, key: str):
        self.request_key, self.replayed, self.made_in_run, self.cost_usd = key, False, True, 0.0


class Failed(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.request_key = key


def test_the_eta_starts_from_the_expectation_before_any_call_has_started():
    clock = Clock()
    counts = Counts(total=12, to_make=10, stats=None, expected=Expected(5.0, "prior"), parallel=4, clock=clock)
    # 10 calls of 5 s, 4 at a time: rounds of 4, 4, 2 = 15 s (the old ETA said "?" here)
    assert counts.eta_s() == pytest.approx(15.0)
    assert "eta 15s" in counts.line("reviews")


def test_hosted_calls_in_flight_are_credited_with_their_time_and_the_measured_times_blend_in():
    clock = Clock()
    counts = Counts(total=6, to_make=6, stats=None, expected=Expected(5.0, "prior"), parallel=4, clock=clock)
    for key in "abcd":
        counts.call_started(Req(key))
    assert counts.eta_s() == pytest.approx(10.0)  # four slots busy 5 s, then two calls of 5 s
    clock.now = 2.0
    assert counts.eta_s() == pytest.approx(8.0)  # 3 s left each, then 5 s
    clock.now = 11.0
    counts.add(Result("a"))  # took 11 s: 5 s a call weighted as two calls, then 11 s: (2·5 + 11) / 3 = 7 s
    assert counts.eta.seconds_per_call() == pytest.approx(7.0)
    counts.add(Failed("b"))  # a failure frees its slot and is not a call's time
    assert counts.eta.seconds_per_call() == pytest.approx(7.0)
    # c and d overdue (0 s left), two calls of 7 s not started, on two free slots: 7 s
    assert counts.eta_s() == pytest.approx(7.0)
    counts.call_started(Req("e"))
    clock.now = 13.0
    assert counts.eta_s() == pytest.approx(7.0)  # e: 7 - 2 = 5 s left; the last call: 7 s on a free slot


def test_the_embedded_eta_comes_down_while_waiting_and_counts_a_queued_call_from_the_answer_before_it():
    clock = Clock()
    counts = Counts(total=3, to_make=3, stats=None, expected=Expected(20.0, "prior"), parallel=1, serial=True,
                    clock=clock)
    counts.call_started(Req("a"))
    counts.call_started(Req("b"))  # the gateway's second slot: waits for the model
    etas = []
    for t in range(41):
        clock.now = float(t)
        etas.append(counts.eta_s())
    assert etas[0] == pytest.approx(60.0)  # a: 20 s, then b and c: 20 s each
    assert etas[10] == pytest.approx(50.0)
    assert etas[30] == etas[40] == pytest.approx(40.0)  # a overdue: the two calls after it
    assert all(later <= earlier for earlier, later in pairwise(etas))  # never climbs
    clock.now = 30.0
    counts.add(Result("a"))  # 30 s: (2·20 + 30) / 3 = 70/3 s a call
    assert counts.eta.seconds_per_call() == pytest.approx(70 / 3)
    assert counts.eta_s() == pytest.approx(2 * 70 / 3)  # b starts on the model now, c after it
    counts.call_started(Req("c"))
    clock.now = 40.0
    assert counts.eta_s() == pytest.approx(70 / 3 - 10 + 70 / 3)
    clock.now = 50.0
    counts.add(Result("b"))  # 20 s on the model (it waited 30 s first): (40 + 30 + 20) / 4 = 22.5 s
    assert counts.eta.seconds_per_call() == pytest.approx(22.5)
    assert counts.eta_s() == pytest.approx(22.5)  # c starts on the model now
    clock.now = 80.0
    counts.add(Result("c"))
    assert counts.eta_s() == 0.0 and "eta 0s" in counts.line("reviews")


def test_every_line_of_a_real_batch_has_an_eta_in_seconds_from_the_first(make_gateway, server):
    out = io.StringIO()
    progress.show_progress_on(out)
    try:
        server.script(*[Reply(delay_s=0.2)] * 4)
        make_gateway(max_concurrency=2).call_many([request(sample_index=i) for i in range(4)], progress=None,
                                                  description="reviews")
    finally:
        progress.show_progress_on(None)
    etas = re.findall(r"· eta (\S+) ·", out.getvalue())
    assert len(etas) == 4 and all(re.fullmatch(r"\d+s", e) for e in etas), out.getvalue()
    assert etas[-1] == "0s"
