"""A stored response body is read again as the provider that received it read it (the call viewer shows
an answer from its response blob): Anthropic's Messages shape for anthropic, chat completions otherwise."""

import pytest

from peerlake.llm_calls.providers import BadResponse, parse_recorded

MESSAGES = {"content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "A"},
                        {"type": "text", "text": "B"}], "stop_reason": "end_turn", "usage": {"input_tokens": 3}}
CHAT = {"choices": [{"message": {"role": "assistant", "content": "C"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2, "completion_tokens": 1}}


@pytest.mark.parametrize("provider", ["openai", "openai_compatible", "local"])
def test_chat_completion_providers_read_the_chat_shape(provider):
    assert parse_recorded(provider, CHAT).text == "C"
    with pytest.raises(BadResponse):
        parse_recorded(provider, MESSAGES)


def test_anthropic_reads_its_text_blocks_only():
    got = parse_recorded("anthropic", MESSAGES)
    assert got.text == "AB" and got.finish_reason == "end_turn"  # the thinking block is not the answer
    with pytest.raises(BadResponse):
        parse_recorded("anthropic", CHAT)
