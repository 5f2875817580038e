"""Per-model request rules, recorded shapes: what reaches a loopback server that answers as each
family's API does (tests/doubles/fake_model_rules.py), what the llm_call event records as dropped or
changed, and the requests refused before any call, naming the setting."""

import json

import pytest

from peerlake.llm_calls.gateway import Gateway, LlmCallFailed
from peerlake.llm_calls.providers import UnsupportedRequest
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider
from peerlake.warehouse.events import LlmCall
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import llm_events, request
from tests.llm_calls.test_replay_identity import _key_without_endpoint

JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 24, "seed": 3000}  # what every judge sends today


def sent(server) -> dict:
    (body,) = server.bodies
    return {k: v for k, v in body.items() if k not in ("messages", "response_format", "system", "output_config")}


def changes(log) -> dict | None:
    (ev,) = [e for e in llm_events(log) if e.status == "ok"]
    return json.loads(ev.param_changes_json) if ev.param_changes_json else None


@pytest.mark.parametrize("model", ["o3", "o4-mini", "o3-mini", "gpt-5", "gpt-5-mini-2025-08-07", "gpt-5.1"])
def test_openai_reasoning_models_get_no_temperature_and_room_to_reason(make_gateway, server, lake_log, model):
    res = make_gateway().call(request(model=model, params=JUDGE_PARAMS))
    assert server.refused == [] and res.text and res.finish_reason == "stop"
    # the 24-token answer budget plus OpenAI's 25k reasoning reserve; temperature never sent; seed kept
    assert sent(server) == {"model": model, "max_completion_tokens": 24 + 25_000, "seed": 3000}
    assert changes(lake_log) == {"dropped": {"temperature": 0.0}, "changed": {"max_completion_tokens": 25_024}}
    assert res.usage.reasoning_tokens == server.reasoning_tokens_spent


def test_reasoning_effort_is_passed_through_and_top_p_dropped(make_gateway, server, lake_log):
    params = {"temperature": 0.75, "top_p": 0.9, "max_tokens": 700, "seed": 1, "reasoning_effort": "high"}
    make_gateway().call(request(model="o4-mini", params=params))
    assert sent(server) == {"model": "o4-mini", "max_completion_tokens": 25_700, "seed": 1, "reasoning_effort": "high"}
    assert changes(lake_log)["dropped"] == {"temperature": 0.75, "top_p": 0.9}


def test_non_reasoning_models_are_sent_as_asked_and_keep_their_key(make_gateway, server, lake_log):
    req = request(model="gpt-4.1-mini", params=JUDGE_PARAMS)
    make_gateway().call(req)
    assert sent(server) == {"model": "gpt-4.1-mini", "temperature": 0.0, "max_completion_tokens": 24, "seed": 3000}
    assert changes(lake_log) is None
    assert req.request_key == _key_without_endpoint(req)


def test_gpt5_chat_is_not_a_reasoning_model(make_gateway, server):
    make_gateway().call(request(model="gpt-5-chat-latest", params=JUDGE_PARAMS))
    assert sent(server)["temperature"] == 0.0


def test_the_reasoning_key_is_the_asked_params_not_the_headroom(monkeypatch):
    # Headroom is how the answer is obtained, not what was asked: changing it replays the lake's answers.
    req = request(model="o3", params=JUDGE_PARAMS)
    monkeypatch.setenv("PEERLAKE_REASONING_HEADROOM_TOKENS", "1000")
    assert req.request_key == _key_without_endpoint(req)


def test_without_headroom_a_reasoning_model_answers_nothing(make_gateway, server, monkeypatch):
    # Today's shape (the answer cap alone): the model reasons past 24 tokens and returns an empty cut answer.
    monkeypatch.setenv("PEERLAKE_REASONING_HEADROOM_TOKENS", "0")
    res = make_gateway().call(request(model="o3", params=JUDGE_PARAMS))
    assert (res.text, res.finish_reason) == ("", "length")


def test_the_loopback_server_rejects_the_old_shape(lake_log, server):
    # Sent as asked (a compatible server's rules: none) to a server answering as OpenAI does for o3.
    gw = Gateway(lake_log, providers={"openai_compatible": OpenAICompatibleProvider(base_url=server.openai_base_url)},
                 max_attempts=1)
    with pytest.raises(LlmCallFailed, match="HTTP400"):
        gw.call(request(provider="openai_compatible", model="o3", params=JUDGE_PARAMS))
    ((_, error),) = server.refused
    assert error["error"]["param"] == "max_tokens" and error["error"]["code"] == "unsupported_parameter"
    with FakeLlmServer() as other:
        provider = OpenAICompatibleProvider(base_url=other.openai_base_url)
        gw = Gateway(lake_log, providers={"openai_compatible": provider}, max_attempts=1)
        with pytest.raises(LlmCallFailed, match="temperature"):
            gw.call(request(provider="openai_compatible", model="o3",
                            params={"temperature": 0.0, "max_completion_tokens": 24}))


def test_a_logprob_probe_on_o3_is_refused_before_any_call(make_gateway, server, lake_log):
    gw = make_gateway()
    with pytest.raises(UnsupportedRequest, match="PEERLAKE_PROBE_SAMPLES"):
        gw.call(request(model="o3", top_logprobs=20, params=JUDGE_PARAMS))
    with pytest.raises(UnsupportedRequest, match="logprobs"):  # the whole batch, before its first call
        gw.call_many([request(model="gpt-4.1-mini"), request(model="o3", top_logprobs=5, subject_id="p2")],
                     progress=False, return_exceptions=True)
    assert server.requests == 0 and server.refused == [] and llm_events(lake_log) == []


def test_reasoning_effort_on_a_chat_model_is_refused_naming_the_setting(make_gateway, server):
    with pytest.raises(UnsupportedRequest, match="remove reasoning_effort"):
        make_gateway().call(request(model="gpt-4.1", params={"max_tokens": 50, "reasoning_effort": "low"}))
    assert server.requests == 0


# ---- GPT-5.1 and later at reasoning_effort "none": a chat model's sampling and logprobs ------------------

@pytest.mark.parametrize("model", ["gpt-5.1", "gpt-5.1-2025-11-13", "gpt-5.2"])
def test_gpt51_at_effort_none_takes_temperature_top_p_and_logprobs(make_gateway, server, lake_log, model):
    params = {"temperature": 0.0, "top_p": 0.9, "max_tokens": 50, "seed": 3000, "reasoning_effort": "none"}
    res = make_gateway().call(request(model=model, params=params, top_logprobs=5))
    assert server.refused == [] and res.finish_reason == "stop"
    # sent as asked (the rename is spelling); no reasoning, so no headroom on top of the 50-token answer
    # (the server's 30-token answer fits it whole)
    assert sent(server) == {"model": model, "temperature": 0.0, "top_p": 0.9, "max_completion_tokens": 50,
                            "seed": 3000, "reasoning_effort": "none", "logprobs": True, "top_logprobs": 5}
    assert changes(lake_log) is None
    assert res.usage.reasoning_tokens == 0 and len(res.logprobs) == 4 and len(res.logprobs[0]["top"]) == 5
    assert make_gateway().output_bound(request(model=model, params=params)) == 50


def test_gpt5_has_no_effort_none_and_the_api_says_so(make_gateway, server, lake_log):
    params = {"temperature": 0.0, "max_tokens": 24, "reasoning_effort": "none"}
    with pytest.raises(UnsupportedRequest, match=r"'none' is GPT-5\.1's and later's"):
        make_gateway().call(request(model="gpt-5", params=params))
    with pytest.raises(UnsupportedRequest, match="no logprobs unless it does not reason"):
        make_gateway().call(request(model="gpt-5", params={"max_tokens": 24}, top_logprobs=5))
    assert server.requests == 0
    # the old blanket shape sent to the loopback server as OpenAI's gpt-5 sees it: refused there too
    gw = Gateway(lake_log, providers={"openai_compatible": OpenAICompatibleProvider(base_url=server.openai_base_url)},
                 max_attempts=1)
    with pytest.raises(LlmCallFailed, match="HTTP400"):
        gw.call(request(provider="openai_compatible", model="gpt-5",
                        params={"temperature": 0.0, "max_completion_tokens": 24, "reasoning_effort": "none"}))
    ((_, error),) = server.refused
    assert error["error"]["param"] == "reasoning_effort" and "'minimal'" in error["error"]["message"]


def test_gpt51_rejects_minimal_naming_none(make_gateway, server):
    with pytest.raises(UnsupportedRequest, match=r"gpt-5\.1 and later have no 'minimal'.*'none'"):
        make_gateway().call(request(model="gpt-5.1", params={"max_tokens": 24, "reasoning_effort": "minimal"}))
    assert server.requests == 0


def test_gpt51_reasoning_at_another_effort_keeps_the_reasoning_rules(make_gateway, server, lake_log):
    res = make_gateway().call(request(model="gpt-5.1", params={**JUDGE_PARAMS, "reasoning_effort": "low"}))
    assert sent(server)["max_completion_tokens"] == 24 + 25_000 and "temperature" not in sent(server)
    assert changes(lake_log)["dropped"] == {"temperature": 0.0}
    assert res.usage.reasoning_tokens == server.reasoning_tokens_spent


def test_the_loopback_server_enforces_the_effort_rules():
    from tests.doubles.fake_model_rules import openai_violation

    def says(model, **body):
        return (openai_violation({"model": model, "messages": [], **body}) or {}).get("error", {})

    assert says("gpt-5.1", reasoning_effort="none", temperature=0.2, logprobs=True, top_logprobs=3) == {}
    assert says("gpt-5.1", reasoning_effort="low", temperature=0.2)["param"] == "temperature"
    assert says("gpt-5.1", temperature=0.2)["param"] == "temperature"  # no effort named: the reasoning rules
    assert says("gpt-5.1", reasoning_effort="minimal")["code"] == "unsupported_value"
    assert says("gpt-5", reasoning_effort="none")["code"] == "unsupported_value"
    assert says("gpt-5.2", reasoning_effort="xhigh") == {} and says("gpt-5.1", reasoning_effort="xhigh") != {}
    assert says("o3", reasoning_effort="none")["param"] == "reasoning_effort"


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-sonnet-4-6"])
def test_claude_without_thinking(make_gateway, server, lake_log, model):
    make_gateway().call(request(provider="anthropic", model=model,
                                params={"temperature": 0.0, "top_p": 0.9, "max_tokens": 24, "seed": 3000}))
    assert server.refused == []
    # 4.5+ take temperature or top_p: the asked temperature is kept; Anthropic has no seed
    assert sent(server) == {"model": model, "max_tokens": 24, "temperature": 0.0}
    assert changes(lake_log) == {"dropped": {"top_p": 0.9, "seed": 3000}}


def test_older_claude_takes_temperature_and_top_p(make_gateway, server):
    make_gateway().call(request(provider="anthropic", model="claude-sonnet-4-0",
                                params={"temperature": 0.0, "top_p": 0.9, "max_tokens": 24}))
    assert sent(server) == {"model": "claude-sonnet-4-0", "max_tokens": 24, "temperature": 0.0, "top_p": 0.9}


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-haiku-4-5"])
def test_claude_with_thinking(make_gateway, server, lake_log, model):
    thinking = {"type": "enabled", "budget_tokens": 2048}
    res = make_gateway().call(request(provider="anthropic", model=model,
                                      params={"temperature": 0.0, "max_tokens": 24, "thinking": thinking}))
    assert server.refused == [] and res.text.startswith("{") and res.finish_reason == "end_turn"
    # thinking counts inside max_tokens: the answer's 24 on top of the budget; temperature only 1
    assert sent(server) == {"model": model, "max_tokens": 24 + 2048, "thinking": thinking}
    assert changes(lake_log) == {"dropped": {"temperature": 0.0}, "changed": {"max_tokens": 2072}}


def test_a_thinking_budget_below_the_minimum_is_refused(make_gateway, server):
    with pytest.raises(UnsupportedRequest, match="budget_tokens must be a whole number >= 1024"):
        make_gateway().call(request(provider="anthropic", model="claude-sonnet-4-5",
                                    params={"max_tokens": 24, "thinking": {"type": "enabled", "budget_tokens": 500}}))
    assert server.requests == 0


def test_logprobs_and_reasoning_effort_on_claude_are_refused(make_gateway, server):
    gw = make_gateway()
    with pytest.raises(UnsupportedRequest, match="no logprobs"):
        gw.call(request(provider="anthropic", model="claude-haiku-4-5", top_logprobs=20))
    with pytest.raises(UnsupportedRequest, match="budget_tokens"):
        gw.call(request(provider="anthropic", model="claude-haiku-4-5",
                        params={"max_tokens": 24, "reasoning_effort": "high"}))
    assert server.requests == 0


def test_the_loopback_server_enforces_anthropics_rules(server):
    from tests.doubles.fake_model_rules import anthropic_violation

    def says(body):
        return (anthropic_violation({"model": "claude-sonnet-4-5", "messages": [], **body}) or {}).get("error", {})

    assert "max_tokens" in says({})["message"]
    thinking = {"type": "enabled", "budget_tokens": 2048}
    assert "budget_tokens" in says({"max_tokens": 2048, "thinking": thinking})["message"]
    assert "temperature" in says({"max_tokens": 4096, "thinking": thinking, "temperature": 0})["message"]
    assert "top_k" in says({"max_tokens": 4096, "thinking": thinking, "top_k": 5})["message"]
    assert "cannot both" in says({"max_tokens": 10, "temperature": 0, "top_p": 0.9})["message"]
    assert says({"max_tokens": 4096, "thinking": thinking, "temperature": 1}) == {}


def test_a_v4_llm_call_reads_as_sent_as_asked():
    ev = LlmCall(request_key="k", prompt_template=None, prompt_hash=None, reviewer_config="c", purpose="p",
                 subject_id=None, sample_index=0, provider="openai", model="gpt-4o", params_json="{}",
                 request_sha256="r", response_sha256=None, response_text=None, finish_reason=None,
                 input_tokens=None, cached_input_tokens=None, cache_write_tokens=None, output_tokens=None,
                 reasoning_tokens=None, cost_usd=None, cost_status="no_usage", price_table_version=None,
                 latency_ms=1.0, attempt=1, status="error")
    record = {k: v for k, v in ev.to_record().items() if k != "param_changes_json"} | {"schema_version": 4}
    assert LlmCall.from_record(record).param_changes_json is None
