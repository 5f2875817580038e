"""A 200 whose body is not a usable answer is retried like a 5xx, bounded, each attempt an event."""

import pytest

from peerlake.llm_calls.gateway import LlmCallFailed
from tests.doubles.fake_server import Reply
from tests.llm_calls.support import llm_events, request

NO_CHOICES = Reply(body={"id": "x", "object": "chat.completion"})
NO_CONTENT = Reply(body={"id": "x", "choices": [{"index": 0, "message": {"role": "assistant"}}]})
NOT_JSON = Reply(raw_body=b'{"id": "x", "choices": [{"index": 0, "mess')  # cut mid-body


def test_malformed_200s_are_retried_then_answered(make_gateway, server, lake_log):
    server.script(NO_CHOICES, NO_CONTENT, NOT_JSON)
    result = make_gateway(max_attempts=5).call(request())
    assert server.requests == 4 and result.text and not result.replayed
    events = llm_events(lake_log)
    assert [(e.attempt, e.status, e.error_type) for e in events] == [
        (1, "error", "BadResponse"), (2, "error", "BadResponse"), (3, "error", "BadResponse"), (4, "ok", None)]


def test_malformed_200s_are_bounded_by_max_attempts(make_gateway, server, lake_log):
    server.script(NO_CHOICES, NO_CHOICES, NO_CHOICES)
    with pytest.raises(LlmCallFailed, match=r"retries exhausted.*BadResponse"):
        make_gateway(max_attempts=2).call(request())
    assert server.requests == 2
    assert [(e.attempt, e.error_type) for e in llm_events(lake_log)] == [(1, "BadResponse"), (2, "BadResponse")]


def test_anthropic_malformed_200_is_retried(make_gateway, server, lake_log):
    server.script(Reply(body={"type": "message", "content": None}))
    result = make_gateway().call(request(provider="anthropic", model="claude-haiku-4-5"))
    assert result.text and server.requests == 2
    assert [e.status for e in llm_events(lake_log)] == ["error", "ok"]


def test_a_refusal_without_text_is_an_answer_not_a_retry(make_gateway, server, lake_log):
    server.script(Reply(body={"id": "x", "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "refusal": "I can't help with that."}}]}))
    result = make_gateway().call(request())
    assert server.requests == 1 and result.text == "" and [e.status for e in llm_events(lake_log)] == ["ok"]
