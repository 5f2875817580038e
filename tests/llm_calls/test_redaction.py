"""API keys never reach the lake, even when a server echoes them back in an error; and text that
merely looks like a key (in a manuscript or an answer) is stored exactly."""

import json

import pytest

from peerlake.llm_calls.gateway import LlmCallFailed
from peerlake.warehouse.redact import REDACTED, redact_message, redact_payload, redact_stored
from tests.doubles.fake_server import Reply
from tests.llm_calls.support import FAKE_KEYS, llm_events, request

COMPAT_KEY = FAKE_KEYS["PEERLAKE_OPENAI_COMPATIBLE_API_KEY"]
# Looks like a key, is nobody's key: text a paper on API security could well contain.
LOOKALIKE = "sk-proj-EXAMPLEexample0123456789 and Authorization: Bearer abcdefghij.klmnop"


def test_redact_message_scrubs_configured_secrets_and_key_shapes(lake_log):
    text = f"key={COMPAT_KEY} other=sk-abcdefghijklmnop Bearer tok.en-123456"
    out = redact_message(text)
    assert COMPAT_KEY not in out and "sk-abcdefghijklmnop" not in out
    assert "tok.en-123456" not in out and out.count(REDACTED) == 3


def test_redact_message_removes_auth_header_values(lake_log):
    text = "headers: {'Authorization': 'Bearer zzzzzzzzzzzz', 'x-api-key': 'qqqqqqqqqq', api-key=wwwwwwww}"
    out = redact_message(text)
    for value in ("zzzzzzzzzzzz", "qqqqqqqqqq", "wwwwwwww"):
        assert value not in out
    assert out.count(REDACTED) == 3


def test_a_six_character_run_of_a_secret_is_redacted_in_messages(lake_log):
    # A proxy that cut the echoed key short: no full secret, but 8 of its characters.
    fragment = COMPAT_KEY[7:15]
    out = redact_message(f"upstream said: invalid key '...{fragment}' (truncated)")
    assert fragment not in out and REDACTED in out
    # Five characters are not a run worth hiding (too common in ordinary text).
    assert redact_message(f"id {COMPAT_KEY[7:12]}!") == f"id {COMPAT_KEY[7:12]}!"


def test_message_is_redacted_before_it_is_cut(lake_log):
    # Old order (cut at 300, then redact): the key straddling the cut left its first characters.
    text = "x" * 290 + COMPAT_KEY + " tail"
    out = redact_message(text, max_chars=300)
    assert len(out) <= 300
    old_order_leak = (text[:300]).replace(COMPAT_KEY, REDACTED)
    assert COMPAT_KEY[:10] in old_order_leak  # what the old order stored
    assert COMPAT_KEY[:6] not in out and not any(COMPAT_KEY[i:i + 6] in out for i in range(len(COMPAT_KEY) - 5))


def test_stored_text_that_only_looks_like_a_key_is_kept_exactly(lake_log):
    assert redact_stored(LOOKALIKE) == LOOKALIKE
    payload = {"messages": [{"role": "user", "content": LOOKALIKE}], "x-api-key": "not-a-real-one"}
    out = redact_payload(payload)
    assert out["messages"][0]["content"] == LOOKALIKE and out["x-api-key"] == REDACTED
    # A configured secret is never stored, even inside manuscript text.
    assert COMPAT_KEY not in redact_stored(f"leaked {COMPAT_KEY} here")


def test_manuscript_and_answer_that_look_like_keys_are_stored_byte_for_byte(make_gateway, server, lake_log):
    answer = json.dumps({"score": 4, "summary": f"mentions {LOOKALIKE}"})
    server.script(Reply(body={"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5}}))
    messages = ({"role": "user", "content": f"Paper text: {LOOKALIKE}"},)
    result = make_gateway().call(request(messages=messages))
    (ev,) = llm_events(lake_log)
    assert result.text == ev.response_text == answer
    stored_request = json.loads(lake_log.blobs.get_text(ev.request_sha256))
    assert stored_request["messages"] == list(messages)
    raw = json.loads(lake_log.blobs.get_text(ev.response_sha256))
    assert raw["choices"][0]["message"]["content"] == answer


@pytest.mark.parametrize("provider,model", [("openai", "gpt-4.1-mini"), ("anthropic", "claude-haiku-4-5"),
                                            ("openai_compatible", "m"), ("gemini", "gemini-2.5-flash-lite")])
def test_echoed_key_appears_in_no_file_under_the_lake(make_gateway, server, lake_log, provider, model):
    server.script(Reply(status=429, echo_auth=True), Reply(status=401, echo_auth=True))
    with pytest.raises(LlmCallFailed) as info:
        make_gateway().call(request(provider=provider, model=model))
    assert server.requests == 2
    assert "authorization=" in str(info.value) or "x-api-key=" in str(info.value)  # the echo did happen
    if provider == "gemini":  # the header it echoed held the key (GOOGLE_API_KEY, read first), now redacted
        assert "x-goog-api-key=[REDACTED]" in str(info.value)
        assert server.gemini_keys == [FAKE_KEYS["GOOGLE_API_KEY"]] * 2
    lake_log.seal()  # Parquet segments too
    files = [p for p in lake_log.lake.root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in files)
    for path in files:
        data = path.read_bytes()
        for key in FAKE_KEYS.values():
            assert key.encode() not in data, f"{key} leaked into {path}"
            assert key[-8:].encode() not in data, f"a tail of {key} leaked into {path}"
    for key in FAKE_KEYS.values():
        assert key not in str(info.value)


def test_key_echoed_in_a_malformed_200_is_redacted_before_the_cut(make_gateway, server, lake_log):
    # The body lands in the error message; the key sits where the old 300-character cut fell.
    server.script(Reply(body={"pad": "p" * 260, "echo": COMPAT_KEY}))
    make_gateway(max_attempts=2).call(request(provider="openai_compatible", model="m"))
    error = next(e for e in llm_events(lake_log) if e.status == "error")
    assert error.error_type == "BadResponse"
    for i in range(len(COMPAT_KEY) - 5):
        assert COMPAT_KEY[i:i + 6] not in error.error_message
