"""The gateway against a loopback server: replay, retries, recording, concurrency, providers."""

import json
import time

import pytest

from peerlake.llm_calls.cost import load_price_table
from peerlake.llm_calls.gateway import Gateway, LlmBatchFailed, LlmCallFailed
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import Reply, Usage
from tests.llm_calls.support import llm_events, providers_for, request


def test_second_identical_call_is_replayed_without_http(make_gateway, server, lake_log):
    gw = make_gateway()
    first = gw.call(request())
    second = gw.call(request())
    assert server.requests == 1
    assert second.replayed and not first.replayed
    assert second.text == first.text and second.event_id == first.event_id
    assert second.parsed == first.parsed == json.loads(first.text)
    assert len(llm_events(lake_log)) == 1
    assert (gw.stats.calls_made, gw.stats.replayed) == (1, 1)


def test_replay_index_is_rebuilt_from_the_log_by_a_new_gateway(make_gateway, server):
    first = make_gateway().call(request())
    again = make_gateway().call(request())
    assert server.requests == 1
    assert again.replayed and again.text == first.text and again.usage == first.usage


def test_another_sample_index_is_a_new_call(make_gateway, server):
    gw = make_gateway()
    a = gw.call(request(sample_index=0))
    b = gw.call(request(sample_index=1))
    assert server.requests == 2
    assert a.request_key != b.request_key and a.text != b.text and not b.replayed


def test_event_records_the_call(make_gateway, server, lake_log):
    req = request(top_logprobs=3, base_url=server.openai_base_url)  # where the test provider sends it
    result = make_gateway().call(req)
    (ev,) = llm_events(lake_log)
    assert ev.event_id == result.event_id and ev.status == "ok" and ev.attempt == 1
    assert (ev.request_key, ev.reviewer_config, ev.sample_index) == (req.request_key, req.reviewer_config, 0)
    assert ev.endpoint == server.openai_base_url and ev.study is None
    assert ev.params_json == '{"max_tokens":50,"seed":0,"temperature":0.7}'
    assert json.loads(lake_log.blobs.get_text(ev.request_sha256))["messages"] == list(req.messages)
    raw = json.loads(lake_log.blobs.get_text(ev.response_sha256))
    assert raw["choices"][0]["message"]["content"] == ev.response_text == result.text
    assert (ev.input_tokens, ev.cached_input_tokens, ev.output_tokens) == (120, 0, 30)
    assert ev.cost_status == "priced" and ev.price_table_version == load_price_table().version
    logprobs = json.loads(lake_log.blobs.get_text(ev.logprobs_sha256))
    assert logprobs == result.logprobs and len(logprobs[0]["top"]) == 3
    assert ev.latency_ms > 0


def test_wire_body_for_openai_has_json_schema_and_logprobs(make_gateway, server):
    make_gateway().call(request(top_logprobs=2))
    body = server.bodies[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body
    assert body["logprobs"] is True and body["top_logprobs"] == 2


def test_openai_compatible_sends_json_object_with_schema(make_gateway, server):
    req = request(provider="openai_compatible", model="some-local-model")
    make_gateway().call(req)
    assert server.bodies[0]["response_format"] == {"type": "json_object", "schema": req.response_schema}
    assert server.bodies[0]["max_tokens"] == 50


def test_retries_with_backoff_then_success_records_each_attempt(make_gateway, server, lake_log):
    server.script(Reply(status=429, headers={"retry-after": "0"}), Reply(status=500), Reply(status=503))
    gw = make_gateway(backoff_base_s=0.05, backoff_max_s=1.0)
    started = time.perf_counter()
    result = gw.call(request())
    assert server.requests == 4 and not result.replayed
    events = llm_events(lake_log)
    assert [(e.attempt, e.status) for e in events] == [(1, "error"), (2, "error"), (3, "error"), (4, "ok")]
    assert [e.error_type for e in events[:3]] == ["HTTP429", "HTTP500", "HTTP503"]
    assert all(e.cost_usd is None and e.response_sha256 is None for e in events[:3])
    assert gw.stats.failed_attempts == 3
    assert time.perf_counter() - started < 5


def test_timeout_is_retried(make_gateway, server, lake_log):
    server.script(Reply(delay_s=1.5))
    result = make_gateway(timeout_s=0.3).call(request())
    assert result.text
    assert [e.error_type for e in llm_events(lake_log)] == ["Timeout", None]


def test_fatal_400_is_not_retried(make_gateway, server, lake_log):
    server.script(Reply(status=400))
    with pytest.raises(LlmCallFailed, match=r"not retryable.*HTTP400") as info:
        make_gateway().call(request())
    assert server.requests == 1 and info.value.attempts == 1
    (ev,) = llm_events(lake_log)
    assert (ev.status, ev.attempt, ev.error_type) == ("error", 1, "HTTP400")
    assert "scripted error 400" in ev.error_message


def test_exhausted_retries_raise_and_numbering_continues_next_run(make_gateway, server, lake_log):
    server.script(*[Reply(status=502)] * 3)
    with pytest.raises(LlmCallFailed, match="retries exhausted"):
        make_gateway(max_attempts=3).call(request())
    result = make_gateway(max_attempts=3).call(request())
    assert not result.replayed
    assert [e.attempt for e in llm_events(lake_log)] == [1, 2, 3, 4]


def test_unknown_model_has_null_cost_and_is_flagged(make_gateway, lake_log):
    result = make_gateway().call(request(provider="openai_compatible", model="no-such-model"))
    (ev,) = llm_events(lake_log)
    assert result.cost_usd is None and ev.cost_usd is None and ev.cost_status == "unknown_model"


def test_cost_uses_cached_tokens(lake_log, server):
    server.usage = Usage(prompt_tokens=1000, cached_tokens=400, completion_tokens=100)
    gw = Gateway(lake_log, providers=providers_for(server))
    result = gw.call(request(model="gpt-4.1-mini"))
    # 600 uncached × 0.40 + 400 cached × 0.10 + 100 output × 1.60, per million
    assert result.cost_usd == pytest.approx((600 * 0.40 + 400 * 0.10 + 100 * 1.60) / 1e6)
    assert gw.stats.cost_usd == pytest.approx(result.cost_usd)


def test_anthropic_usage_is_normalized_to_total_prompt_tokens(lake_log, server):
    server.usage = Usage(prompt_tokens=1000, cached_tokens=300, cache_write_tokens=200, completion_tokens=50)
    gw = Gateway(lake_log, providers=providers_for(server))
    req = request(provider="anthropic", model="claude-haiku-4-5")
    result = gw.call(req)
    assert result.usage.input_tokens == 1000
    assert (result.usage.cached_input_tokens, result.usage.cache_write_tokens) == (300, 200)
    assert result.cost_usd == pytest.approx((500 * 1.00 + 300 * 0.10 + 200 * 1.25 + 50 * 5.00) / 1e6)
    body = server.bodies[0]
    assert body["system"] == "You review papers." and [m["role"] for m in body["messages"]] == ["user"]
    assert body["output_config"]["format"]["schema"] == req.response_schema and "seed" not in body


def test_call_many_bounds_concurrency_and_keeps_order(make_gateway, server):
    server.delay_s = 0.15
    gw = make_gateway(max_concurrency=3)
    reqs = [request(sample_index=i) for i in range(9)]
    results = gw.call_many(reqs, progress=False)
    assert [r.request_key for r in results] == [gw.bind(r).request_key for r in reqs]
    assert server.max_in_flight == 3
    assert gw.call_many(reqs, progress=False)[4].replayed and server.requests == 9


def test_call_many_finishes_the_batch_when_one_call_fails(make_gateway, server, lake_log):
    gw = make_gateway(max_concurrency=1)
    server.script(Reply(status=400))
    reqs = [request(sample_index=i) for i in range(3)]
    with pytest.raises(LlmBatchFailed) as info:
        gw.call_many(reqs, progress=False)
    assert list(info.value.failures) == [0] and all(r is not None for r in info.value.results[1:])
    mixed = gw.call_many([request(sample_index=9), *reqs[1:]], progress=False, return_exceptions=True)
    assert not any(isinstance(r, Exception) for r in mixed) and mixed[1].replayed


def test_missing_key_is_a_clear_error_before_any_call(lake_log, server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    gw = Gateway(lake_log, providers=providers_for(server))
    with pytest.raises(Exception, match="OPENAI_API_KEY"):
        gw.call(request())
    assert server.requests == 0 and llm_events(lake_log) == []


def test_events_written_by_another_gateway_are_picked_up(make_gateway, server, lake_log):
    gw_a, gw_b = make_gateway(), Gateway(EventLog(lake_log.lake), providers=providers_for(server))
    gw_a.call(request(sample_index=5))
    assert gw_b.call(request(sample_index=5)).replayed and server.requests == 1


def test_progress_bar_shows_made_replayed_and_cost(make_gateway, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at 80 columns off a terminal
    gw = make_gateway()
    gw.call(request(sample_index=0))
    gw.call_many([request(sample_index=i) for i in range(3)], progress=True, description="reviews")
    err = capsys.readouterr().err
    assert "reviews" in err and "made 2 · replayed 1 · $" in err


def test_progress_is_plain_lines_when_not_a_terminal(make_gateway, capsys):
    # CI logs and `make demo | tee` still see progress, as lines instead of a redrawn bar.
    make_gateway().call_many([request(sample_index=i) for i in range(3)], description="plain")
    err = capsys.readouterr().err
    assert "plain: 3/3" in err and "made 3 · replayed 0" in err and "\x1b[" not in err
    make_gateway().call_many([request()], description="off", progress=False)
    assert "off" not in capsys.readouterr().err
