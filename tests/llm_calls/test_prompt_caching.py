"""Prompt caching: the cache-breakpoint convention, what each provider sends, and the usage split
recorded and priced, against a loopback server that reports cache usage the way each provider does."""

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.prompt_cache import EPHEMERAL
from peerlake.llm_calls.providers import FatalProviderError
from peerlake.llm_calls.providers.anthropic_messages import AnthropicProvider
from peerlake.prompts import load_template
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import llm_events, providers_for, request

MANUSCRIPT = "x" * 8000
# The fake counts 4 characters per token over "<|role|>" + text of each message / block:
#   system "<|system|>You review papers." = 10 + 18 = 28 chars
#   user   "<|user|>" + 8000 x's          = 8 + 8000 = 8008 chars, then "Rate it." = 8 chars
MESSAGES = ({"role": "system", "content": "You review papers."},
            {"role": "user", "content": MANUSCRIPT + "Rate it.", "cache_breakpoint": len(MANUSCRIPT)})


@pytest.fixture
def cache_server():
    with FakeLlmServer(prompt_cache=True) as srv:
        yield srv


@pytest.fixture
def cache_gateway(lake_log, cache_server):
    return Gateway(lake_log, providers=providers_for(cache_server), backoff_base_s=0.01, backoff_max_s=0.05)


def test_reviewer_template_puts_the_manuscript_first_and_marks_the_breakpoint_after_it():
    system, user = load_template("reviewer_scoring").render(paper_text="PAPER BODY", title="T")
    at = user["cache_breakpoint"]
    assert user["content"][:at] == "Title: T\n\n<manuscript>\nPAPER BODY\n</manuscript>\n"
    assert user["content"][at:].lstrip().startswith("Review this manuscript.")
    assert "\x00" not in user["content"] and "cache_breakpoint" not in system
    # The same paper under the decimal template repeats the whole prefix: system + manuscript.
    system2, user2 = load_template("reviewer_scoring_decimal").render(paper_text="PAPER BODY", title="T")
    assert system2 == system and user2["content"][:user2["cache_breakpoint"]] == user["content"][:at]


def test_anthropic_gets_cache_control_at_the_breakpoint_and_openai_a_plain_string(cache_gateway, cache_server):
    cache_gateway.call(request(provider="anthropic", model="claude-sonnet-4-6", messages=MESSAGES))
    cache_gateway.call(request(provider="openai", model="gpt-4.1-mini", messages=MESSAGES))

    anthropic_body, openai_body = cache_server.bodies
    assert anthropic_body["system"] == "You review papers."
    (user,) = anthropic_body["messages"]
    assert user["content"] == [{"type": "text", "text": MANUSCRIPT, "cache_control": EPHEMERAL},
                               {"type": "text", "text": "Rate it."}]
    # OpenAI caches prefixes by itself and rejects unknown message fields: the mark is dropped.
    assert openai_body["messages"][1] == {"role": "user", "content": MANUSCRIPT + "Rate it."}


def test_a_marked_system_message_becomes_system_blocks_and_more_than_four_marks_are_refused():
    provider = AnthropicProvider()
    marked = ({"role": "system", "content": "Rules. Long shared context.", "cache_breakpoint": 6},
              {"role": "user", "content": "Rate it."})
    body = provider.request_body(request(provider="anthropic", messages=marked))
    assert body["system"] == [{"type": "text", "text": "Rules.", "cache_control": EPHEMERAL},
                              {"type": "text", "text": " Long shared context."}]
    assert body["messages"] == [{"role": "user", "content": "Rate it."}]
    five = tuple({"role": "user", "content": f"part {i}", "cache_breakpoint": 2} for i in range(5))
    with pytest.raises(FatalProviderError, match="more than 4 cache breakpoints"):
        provider.request_body(request(provider="anthropic", messages=five))


def test_anthropic_cache_write_then_read_is_recorded_and_priced(cache_gateway, lake_log):
    for k in range(2):
        cache_gateway.call(request(provider="anthropic", model="claude-sonnet-4-6", messages=MESSAGES,
                                   sample_index=k))
    first, second = llm_events(lake_log)
    # Marked prefix: 28 + 8008 = 8036 chars -> 2009 tokens; whole prompt 8036 + 16 = 8052 chars -> 2013.
    assert (first.input_tokens, first.cached_input_tokens, first.cache_write_tokens) == (2013, 0, 2009)
    assert (second.input_tokens, second.cached_input_tokens, second.cache_write_tokens) == (2013, 2009, 0)
    # claude-sonnet-4-6 per MTok: input $3, cache write $3.75, cache read $0.30, output $15; 30 output tokens.
    #   first:  (4 * 3 + 2009 * 3.75 + 30 * 15) / 1e6 = (12 + 7533.75 + 450) / 1e6 = 7.99575e-3
    #   second: (4 * 3 + 2009 * 0.30 + 30 * 15) / 1e6 = (12 + 602.7 + 450) / 1e6   = 1.0647e-3
    assert first.cost_usd == pytest.approx(7.99575e-3)
    assert second.cost_usd == pytest.approx(1.0647e-3)


def test_openai_reports_a_repeated_prefix_as_cached_in_128_token_steps(cache_gateway, lake_log):
    for k in range(2):
        cache_gateway.call(request(provider="openai", model="gpt-4.1-mini", messages=MESSAGES, sample_index=k))
    first, second = llm_events(lake_log)
    # Prompt "<|system|>…<|user|>" + 8000 x's + "Rate it." = 10 + 18 + 8 + 8000 + 8 = 8044 chars = 2011
    # tokens; the second repeats all of it: 1024 + floor((2011 - 1024) / 128) * 128 = 1024 + 896 = 1920.
    assert (first.input_tokens, first.cached_input_tokens) == (2011, 0)
    assert (second.input_tokens, second.cached_input_tokens) == (2011, 1920)
    # gpt-4.1-mini per MTok: input $0.40, cached $0.10, output $1.60.
    #   first:  (2011 * 0.40 + 30 * 1.60) / 1e6                 = (804.4 + 48) / 1e6       = 8.524e-4
    #   second: (91 * 0.40 + 1920 * 0.10 + 30 * 1.60) / 1e6     = (36.4 + 192 + 48) / 1e6  = 2.764e-4
    assert first.cost_usd == pytest.approx(8.524e-4)
    assert second.cost_usd == pytest.approx(2.764e-4)


def test_a_short_prefix_is_not_cached(cache_gateway, lake_log):
    short = ({"role": "user", "content": "tiny paper. Rate it.", "cache_breakpoint": 11},)
    for k in range(2):
        cache_gateway.call(request(provider="anthropic", model="claude-sonnet-4-6", messages=short, sample_index=k))
    # Below 1,024 tokens Anthropic ignores the mark (no error, no cache): nothing read or written.
    assert [(e.cached_input_tokens, e.cache_write_tokens) for e in llm_events(lake_log)] == [(0, 0), (0, 0)]
