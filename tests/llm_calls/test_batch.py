"""Provider batch APIs (OpenAI Batch, Anthropic Message Batches) against the loopback server."""

import json

import pytest

from peerlake.llm_calls.batch import BatchPending, BatchRunner
from peerlake.llm_calls.gateway import LlmCallFailed
from peerlake.llm_calls.types import LlmResult
from tests.llm_calls.support import llm_events, request

# The loopback server's fixed usage is 120 input and 30 output tokens per answer. Batch rates in
# llm_calls/prices.toml: gpt-4.1-mini $0.20 / $0.80 per MTok (direct $0.40 / $1.60),
# claude-sonnet-4-6 $1.50 / $7.50 (direct $3 / $15): half price at both.
#   openai:    (120 * 0.20 + 30 * 0.80) / 1e6 = (24 + 24) / 1e6    = 4.8e-5   (direct 9.6e-5)
#   anthropic: (120 * 1.50 + 30 * 7.50) / 1e6 = (180 + 225) / 1e6 = 4.05e-4  (direct 8.1e-4)
PROTOCOLS = [("openai", "gpt-4.1-mini", 4.8e-5), ("anthropic", "claude-sonnet-4-6", 4.05e-4)]


def _reqs(provider: str, model: str, n: int = 3):
    return [request(provider=provider, model=model, sample_index=k) for k in range(n)]


def _keys(gw, reqs):
    """request_keys as the gateway keys them (with the loopback endpoint filled in)."""
    return [gw.bind(r).request_key for r in reqs]


def _runner(gw, **kw):
    kw.setdefault("poll_interval_s", 0.01)
    kw.setdefault("max_wait_s", 10.0)
    return BatchRunner(gw, **kw)


def _events(log, event_type):
    return list(log.iter_events(event_type))


@pytest.mark.parametrize(("provider", "model", "batch_cost"), PROTOCOLS)
def test_batch_answers_become_llm_calls_at_half_price(make_gateway, server, lake_log, provider, model, batch_cost):
    reqs, gw = _reqs(provider, model), make_gateway()
    results = _runner(gw).call_many(reqs)

    assert all(isinstance(r, LlmResult) and not r.replayed for r in results)
    assert server.requests == 0  # no direct call: everything went through the batch endpoints
    (sub,) = _events(lake_log, "llm_batch_submitted")
    assert (sub.provider, sub.model, sub.n) == (provider, model, 3)
    keys = _keys(gw, reqs)
    assert json.loads(sub.request_keys_json) == keys
    # The stored input is the uploaded JSONL: one line per request, custom_id = request_key.
    lines = [json.loads(x) for x in lake_log.blobs.get_text(sub.input_sha256).splitlines()]
    assert [x["custom_id"] for x in lines] == keys
    calls = llm_events(lake_log)
    assert sorted(e.request_key for e in calls) == sorted(keys)
    assert {e.batch_id for e in calls} == {sub.batch_id}
    assert all(e.cost_usd == pytest.approx(batch_cost) and e.status == "ok" for e in calls)
    assert [r.text for r in results] == [e.response_text for e in sorted(calls, key=lambda e: e.sample_index)]
    (fin,) = _events(lake_log, "llm_batch_finished")
    assert (fin.batch_id, fin.status, fin.n_ok, fin.n_failed) == (sub.batch_id, "completed", 3, 0)
    assert fin.output_sha256 and len(lake_log.blobs.get_text(fin.output_sha256).splitlines()) == 3


@pytest.mark.parametrize(("provider", "model", "batch_cost"), PROTOCOLS)
def test_batch_answers_replay_for_free_afterwards(make_gateway, server, lake_log, provider, model, batch_cost):
    reqs = _reqs(provider, model)
    first = _runner(make_gateway()).call_many(reqs)
    gw = make_gateway()  # a new process: its index comes from the log
    again = _runner(gw).call_many(reqs)
    direct = gw.call(reqs[0])

    assert all(r.replayed for r in again) and direct.replayed
    assert [r.event_id for r in again] == [r.event_id for r in first]
    assert gw.stats.cost_usd == 0.0 and gw.stats.calls_made == 0
    assert len(server.batches.created) == 1 and server.requests == 0
    assert len(llm_events(lake_log)) == 3 and len(_events(lake_log, "llm_batch_submitted")) == 1


@pytest.mark.parametrize(("provider", "model", "batch_cost"), PROTOCOLS)
def test_a_failed_item_is_retried_in_a_new_batch(make_gateway, server, lake_log, provider, model, batch_cost):
    server.fail_batch_items(1)  # the first item processed fails (a 500 / an api_error line)
    reqs, gw = _reqs(provider, model), make_gateway()
    results = _runner(gw).call_many(reqs)

    assert all(isinstance(r, LlmResult) for r in results)
    first, second = _events(lake_log, "llm_batch_submitted")
    assert (first.n, second.n) == (3, 1)
    failed_key = json.loads(first.request_keys_json)[0]  # items are processed in line order
    assert json.loads(second.request_keys_json) == [failed_key]
    fins = {f.batch_id: f for f in _events(lake_log, "llm_batch_finished")}
    assert (fins[first.batch_id].n_ok, fins[first.batch_id].n_failed) == (2, 1)
    assert (fins[second.batch_id].n_ok, fins[second.batch_id].n_failed) == (1, 0)
    # No key was answered (paid) twice, and each answer names the batch that made it.
    assert sorted(server.batches.answered) == sorted(_keys(gw, reqs))
    by_key = {e.request_key: e.batch_id for e in llm_events(lake_log) if e.status == "ok"}
    assert by_key[failed_key] == second.batch_id
    # The failed item is an error event of the first batch; the answer is attempt 2.
    tries = [(e.status, e.batch_id, e.attempt) for e in llm_events(lake_log) if e.request_key == failed_key]
    assert tries == [("error", first.batch_id, 1), ("ok", second.batch_id, 2)]


def test_an_item_that_keeps_failing_is_returned_as_an_exception(make_gateway, server, lake_log):
    server.fail_batch_items(10)  # every item of every batch in this test
    results = _runner(make_gateway(), max_resubmits=1).call_many(_reqs("openai", "gpt-4.1-mini", n=2))

    assert all(isinstance(r, LlmCallFailed) and r.attempts == 2 for r in results)  # first batch + 1 resubmit
    assert "retries exhausted" in str(results[0]) and results[0].error_type == "HTTP500"
    assert len(server.batches.created) == 2
    # every failed item of every round is an error event, numbered on: 2 items × 2 rounds, no answer
    errors = llm_events(lake_log)
    assert sorted((e.status, e.attempt) for e in errors) == [("error", 1), ("error", 1), ("error", 2), ("error", 2)]
    assert {e.error_type for e in errors} == {"HTTP500"} and all(e.batch_id for e in errors)
    assert [f.n_failed for f in _events(lake_log, "llm_batch_finished")] == [2, 2]


@pytest.mark.parametrize(("provider", "model", "batch_cost"), PROTOCOLS)
def test_a_pending_batch_is_resumed_by_the_next_run_not_resubmitted(make_gateway, server, lake_log, provider,
                                                                   model, batch_cost):
    reqs = _reqs(provider, model)
    # The first run polls once (the batch needs 2 polls to end) and runs out of time: as if it
    # had been killed mid-poll, the log holds a submitted batch and no finished one.
    pending = _runner(make_gateway(), max_wait_s=0).call_many(reqs)
    assert all(isinstance(r, BatchPending) for r in pending)
    (sub,) = _events(lake_log, "llm_batch_submitted")
    assert pending[0].batch_id == sub.batch_id and _events(lake_log, "llm_batch_finished") == []
    assert llm_events(lake_log) == []

    results = _runner(make_gateway()).call_many(reqs)  # a new process, a new runner: state from the log

    assert all(isinstance(r, LlmResult) and not r.replayed for r in results)
    assert len(server.batches.created) == 1  # polled, never resubmitted
    assert sorted(server.batches.answered) == sorted(r.request_key for r in results)  # each key paid once
    assert {e.batch_id for e in llm_events(lake_log)} == {sub.batch_id}
    assert all(e.cost_usd == pytest.approx(batch_cost) for e in llm_events(lake_log))
    (fin,) = _events(lake_log, "llm_batch_finished")
    assert fin.batch_id == sub.batch_id and fin.n_ok == 3


def test_only_unanswered_keys_are_batched_and_duplicates_are_one_item(make_gateway, server, lake_log):
    gw = make_gateway()
    reqs = _reqs("openai", "gpt-4.1-mini")
    gw.call(reqs[0])  # answered directly beforehand
    results = _runner(gw).call_many([*reqs, reqs[2]])

    assert results[0].replayed and not results[1].replayed
    assert results[2].event_id == results[3].event_id  # the same key asked twice: one item, two slots
    (sub,) = _events(lake_log, "llm_batch_submitted")
    assert json.loads(sub.request_keys_json) == _keys(gw, reqs[1:])
    assert server.requests == 1 and len(server.batches.answered) == 2


def test_a_provider_without_a_batch_api_is_called_directly(make_gateway, server, lake_log):
    results = _runner(make_gateway()).call_many(_reqs("openai_compatible", "my-model", n=2))

    assert all(isinstance(r, LlmResult) for r in results) and server.requests == 2
    assert _events(lake_log, "llm_batch_submitted") == [] and server.batches.created == []
    assert all(e.batch_id is None for e in llm_events(lake_log))


def test_a_later_run_collects_a_pending_batch_it_was_not_asked_about(make_gateway, server, lake_log):
    reqs = _reqs("anthropic", "claude-sonnet-4-6")
    _runner(make_gateway(), max_wait_s=0).call_many(reqs)  # submitted, then "killed" while pending

    # A new process with no requests in hand rebuilds them from the lake's request blobs.
    assert _runner(make_gateway()).collect_pending() == 1

    assert len(llm_events(lake_log)) == 3 and len(server.batches.created) == 1
    (fin,) = _events(lake_log, "llm_batch_finished")
    assert (fin.n_ok, fin.n_failed) == (3, 0)
    again = _runner(make_gateway()).call_many(reqs)
    assert all(r.replayed for r in again)


def test_result_lines_that_may_succeed_later_are_retryable_and_refusals_are_not():
    from peerlake.llm_calls.providers.anthropic_messages import anthropic_batch_item
    from peerlake.llm_calls.providers.openai_chat import openai_batch_item

    expired = openai_batch_item({"custom_id": "k1", "response": None,
                                 "error": {"code": "batch_expired", "message": "not run in 24h"}})
    refused = openai_batch_item({"custom_id": "k2", "error": None,
                                 "response": {"status_code": 400, "body": {"error": {"message": "bad"}}}})
    assert (expired.response, expired.error.retryable, expired.error.error_type) == (None, True, "batch_expired")
    assert (refused.error.retryable, refused.error.error_type) == (False, "HTTP400")
    canceled = anthropic_batch_item({"custom_id": "k3", "result": {"type": "canceled"}})
    invalid = anthropic_batch_item({"custom_id": "k4", "result": {"type": "errored", "error": {
        "type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too big"}}}})
    overloaded = anthropic_batch_item({"custom_id": "k5", "result": {"type": "errored", "error": {
        "type": "error", "error": {"type": "overloaded_error", "message": "busy"}}}})
    assert canceled.error.retryable and overloaded.error.retryable
    assert not invalid.error.retryable and "max_tokens" in str(invalid.error)
    # A succeeded line without a usable message is an error, not an empty answer.
    broken = anthropic_batch_item({"custom_id": "k6", "result": {"type": "succeeded", "message": {}}})
    assert broken.response is None and broken.error.error_type == "BadResponse"


def test_the_run_cost_cap_holds_for_batches_too(make_gateway, server, lake_log):
    from peerlake.llm_calls.gateway import CostCapRefused
    from peerlake.warehouse.attribution import attributed

    reqs = _reqs("openai", "gpt-4.1-mini")
    with attributed(dagster_run_id="run-cap", max_cost_usd=0.0):  # nothing new may be paid for
        results = _runner(make_gateway()).call_many(reqs)
    assert all(isinstance(r, CostCapRefused) for r in results)  # left undone, not failed
    assert not server.batches.created and not _events(lake_log, "llm_batch_submitted")
    assert len(_events(lake_log, "cost_cap_reached")) == 3
    with attributed(dagster_run_id="run-cap2", max_cost_usd=1.0):  # $1 holds all three
        assert all(isinstance(r, LlmResult) for r in _runner(make_gateway()).call_many(reqs))
