"""The gemini provider, recorded shapes: what reaches a loopback server that answers as Google's
generateContent does for each Gemini family (tests/doubles/fake_model_rules.py, written from Google's
documentation, not from model_rules.py), what the llm_call event records, usage with thoughts billed as
output, blocked answers recorded as answers without text, and the key only in its header."""

import json

import httpx
import pytest

from peerlake.llm_calls.cost import PRICED
from peerlake.llm_calls.gateway import LlmCallFailed
from peerlake.llm_calls.providers import ProviderUnavailable, UnsupportedRequest, parse_recorded
from peerlake.llm_calls.providers.gemini import GeminiProvider
from tests.doubles.fake_server import Reply
from tests.llm_calls.support import FAKE_KEYS, llm_events, request

JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 24, "seed": 3000}  # what every judge sends today
# Room for the server's whole 30-token answer after a fully spent thinking budget (24 would cut it).
ROOMY = {**JUDGE_PARAMS, "max_tokens": 50}
SCHEMA = {"type": "object", "properties": {"score": {"type": "integer"}}}


def gemini(model: str, **kw):
    return request(provider="gemini", model=model, **kw)


def sent(server) -> dict:
    (body,) = server.bodies
    return body


def config(server) -> dict:
    return {k: v for k, v in sent(server)["generationConfig"].items() if k not in ("responseJsonSchema",)}


def changes(log) -> dict | None:
    (ev,) = [e for e in llm_events(log) if e.status == "ok"]
    return json.loads(ev.param_changes_json) if ev.param_changes_json else None


def test_gemini_pro_thinks_dynamically_inside_the_answer_budget(make_gateway, server, lake_log):
    res = make_gateway().call(gemini("gemini-2.5-pro", params=JUDGE_PARAMS))
    assert server.refused == [] and res.text.startswith("{") and res.finish_reason == "stop"
    body = sent(server)
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Rate this paper."}]}]
    assert body["systemInstruction"] == {"parts": [{"text": "You review papers."}]}
    # the 24-token answer plus 2.5 Pro's largest thinking budget (thoughts count inside maxOutputTokens)
    assert config(server) == {"temperature": 0.0, "seed": 3000, "maxOutputTokens": 24 + 32_768,
                              "responseMimeType": "application/json"}
    assert body["generationConfig"]["responseJsonSchema"] == SCHEMA
    assert changes(lake_log) == {"changed": {"maxOutputTokens": 32_792}}
    # the loopback model spent 2,000 thought tokens before its 30-token answer: both are output
    assert (res.usage.input_tokens, res.usage.output_tokens, res.usage.reasoning_tokens) == (120, 30 + 2000, 2000)
    assert make_gateway().output_bound(gemini("gemini-2.5-pro", params=JUDGE_PARAMS)) == 32_792


def test_gemini_pro_cannot_turn_thinking_off(make_gateway, server):
    with pytest.raises(UnsupportedRequest, match="cannot turn thinking off"):
        make_gateway().call(gemini("gemini-2.5-pro", params={**JUDGE_PARAMS, "thinking_budget": 0}))
    with pytest.raises(UnsupportedRequest, match=r"128\.\.32768"):
        make_gateway().call(gemini("gemini-2.5-pro", params={**JUDGE_PARAMS, "thinking_budget": 64}))
    assert server.requests == 0


def test_gemini_pro_with_a_budget_spends_at_most_it(make_gateway, server, lake_log):
    res = make_gateway().call(gemini("gemini-2.5-pro", params={**ROOMY, "thinking_budget": 1024}))
    assert config(server)["thinkingConfig"] == {"thinkingBudget": 1024}
    assert config(server)["maxOutputTokens"] == 50 + 1024 and res.finish_reason == "stop"
    assert res.usage.reasoning_tokens == 1024 and res.usage.output_tokens == 1024 + 30


def test_gemini_flash_lite_does_not_think_unless_asked(make_gateway, server, lake_log):
    res = make_gateway().call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS))
    assert server.refused == [] and res.finish_reason == "stop"
    assert config(server) == {"temperature": 0.0, "seed": 3000, "maxOutputTokens": 24,
                              "responseMimeType": "application/json"}
    assert changes(lake_log) is None  # sent as asked: the renames are spelling
    assert (res.usage.output_tokens, res.usage.reasoning_tokens) == (30, None)
    assert make_gateway().output_bound(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS)) == 24
    assert make_gateway().reasoning_prior(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS)) is None


def test_gemini_flash_lite_thinking_budget_range(make_gateway, server):
    res = make_gateway().call(gemini("gemini-2.5-flash-lite", params={**ROOMY, "thinking_budget": 512}))
    assert config(server)["thinkingConfig"] == {"thinkingBudget": 512} and res.usage.reasoning_tokens == 512
    with pytest.raises(UnsupportedRequest, match=r"0 \(off\), or 512\.\.24576"):
        make_gateway().call(gemini("gemini-2.5-flash-lite", params={**JUDGE_PARAMS, "thinking_budget": 100}))
    assert server.requests == 1


def test_gemini_flash_turns_thinking_off_with_zero(make_gateway, server, lake_log):
    res = make_gateway().call(gemini("gemini-2.5-flash", params={**JUDGE_PARAMS, "thinking_budget": 0}))
    assert config(server)["thinkingConfig"] == {"thinkingBudget": 0} and config(server)["maxOutputTokens"] == 24
    assert res.usage.reasoning_tokens is None and changes(lake_log) is None


def test_gemini_3_thinks_by_level(make_gateway, server):
    res = make_gateway().call(gemini("gemini-3-pro-preview", params={**JUDGE_PARAMS, "thinking_level": "low"}))
    assert config(server)["thinkingConfig"] == {"thinkingLevel": "low"} and res.usage.reasoning_tokens == 2000
    gw = make_gateway()
    with pytest.raises(UnsupportedRequest, match="thinking_level"):
        gw.call(gemini("gemini-3-pro-preview", params={**JUDGE_PARAMS, "thinking_budget": 1024}))
    with pytest.raises(UnsupportedRequest, match="takes thinking_level low, high"):
        gw.call(gemini("gemini-3-pro-preview", params={**JUDGE_PARAMS, "thinking_level": "minimal"}))
    assert server.requests == 1


def test_logprobs_and_openai_settings_are_refused_naming_the_setting(make_gateway, server):
    gw = make_gateway()
    with pytest.raises(UnsupportedRequest, match="PEERLAKE_PROBE_SAMPLES"):
        gw.call(gemini("gemini-2.5-flash", top_logprobs=20))
    with pytest.raises(UnsupportedRequest, match="thinking_budget"):
        gw.call(gemini("gemini-2.5-flash", params={**JUDGE_PARAMS, "reasoning_effort": "high"}))
    assert server.requests == 0


def test_an_unknown_asked_parameter_is_dropped_and_recorded(make_gateway, server, lake_log):
    make_gateway().call(gemini("gemini-2.5-flash-lite", params={**JUDGE_PARAMS, "logit_bias": {"1": 5}}))
    assert server.refused == [] and "logit_bias" not in json.dumps(sent(server))
    assert changes(lake_log) == {"dropped": {"logit_bias": {"1": 5}}}


# ---- what the loopback server refuses, as Google's API does (the shapes peerlake no longer sends) -------

def _post(server, model: str, body: dict, key: str | None = "k") -> httpx.Response:
    headers = {"x-goog-api-key": key} if key else {}
    return httpx.post(f"{server.url}/v1beta/models/{model}:generateContent", json=body, headers=headers)


def test_the_loopback_server_enforces_geminis_rules(server):
    base = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}

    def says(model, **generation_config):
        r = _post(server, model, {**base, "generationConfig": generation_config})
        return r.status_code, r.json().get("error", {}).get("message", "")

    assert says("gemini-2.5-pro", thinkingConfig={"thinkingBudget": 0}) == (
        400, "Budget 0 is invalid. This model only works in thinking mode.")
    assert says("gemini-2.5-flash", thinkingConfig={"thinkingBudget": 0})[0] == 200
    assert "between 512 and 24576" in says("gemini-2.5-flash-lite", thinkingConfig={"thinkingBudget": 100})[1]
    both = {"thinkingBudget": 1, "thinkingLevel": "low"}
    assert "cannot both" in says("gemini-3-pro-preview", thinkingConfig=both)[1]
    assert 'Unknown name "max_tokens"' in says("gemini-2.5-flash", max_tokens=24)[1]  # OpenAI's spelling
    assert "additionalProperties" in says("gemini-2.5-flash", responseMimeType="application/json",
                                          responseSchema={"type": "object", "additionalProperties": False})[1]
    assert says("gemini-2.5-flash", responseMimeType="application/json",
                responseJsonSchema={"type": "object", "additionalProperties": False})[0] == 200
    assert "Logprobs is not enabled" in says("gemini-2.5-flash-lite", responseLogprobs=True, logprobs=5)[1]
    assert _post(server, "gemini-2.5-flash", base, key=None).status_code == 403  # no key: Google's 403


def test_the_key_goes_in_its_header_only_and_googles_name_wins(make_gateway, server, monkeypatch):
    make_gateway().call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS))
    assert server.gemini_keys == [FAKE_KEYS["GOOGLE_API_KEY"]]
    assert server.gemini_paths == ["/v1beta/models/gemini-2.5-flash-lite:generateContent"]  # no ?key=
    monkeypatch.delenv("GOOGLE_API_KEY")
    make_gateway().call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS, sample_index=1))
    assert server.gemini_keys[-1] == FAKE_KEYS["GEMINI_API_KEY"]
    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(ProviderUnavailable, match="set GEMINI_API_KEY \\(or GOOGLE_API_KEY\\)"):
        GeminiProvider(base_url=server.url).ensure_ready()


# ---- answers without text: blocked, cut at the ceiling, prompt refused ---------------------------------

USAGE = {"promptTokenCount": 50, "candidatesTokenCount": 0, "totalTokenCount": 50}


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION", "PROHIBITED_CONTENT"])
def test_a_blocked_answer_is_recorded_with_its_reason_not_a_crash(make_gateway, server, lake_log, reason):
    server.script(Reply(body={"candidates": [{"finishReason": reason, "index": 0,
                                              "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT",
                                                                 "probability": "HIGH", "blocked": True}]}],
                              "usageMetadata": USAGE}))
    res = make_gateway().call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS))
    assert (res.text, res.finish_reason) == ("", reason.lower())
    (ev,) = llm_events(lake_log)
    assert (ev.status, ev.finish_reason, ev.input_tokens, ev.output_tokens) == ("ok", reason.lower(), 50, 0)
    assert ev.cost_status == PRICED and ev.cost_usd == pytest.approx(50 * 0.10 / 1e6)  # the prompt is billed


def test_a_blocked_prompt_and_an_answer_spent_on_thinking(make_gateway, server, lake_log):
    server.script(Reply(body={"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": USAGE}),
                  # as langchain-ai/langchain-google#1020 recorded it (raw: the server adds no thinking of its own)
                  Reply(raw_body=json.dumps({
                      "candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}],
                      "usageMetadata": {"promptTokenCount": 50, "thoughtsTokenCount": 3071,
                                        "totalTokenCount": 3121}}).encode()))
    gw = make_gateway()
    blocked = gw.call(gemini("gemini-2.5-flash", params=JUDGE_PARAMS))
    assert (blocked.text, blocked.finish_reason) == ("", "prompt_safety")
    cut = gw.call(gemini("gemini-2.5-flash", params=JUDGE_PARAMS, sample_index=1))
    # the callers' own test for a cut answer ("length" / "max_tokens") recognises it
    assert (cut.text, cut.finish_reason, cut.usage.output_tokens, cut.usage.reasoning_tokens) == (
        "", "max_tokens", 3071, 3071)


def test_a_body_without_candidates_or_block_is_retried_then_fails(make_gateway, server, lake_log):
    server.script(Reply(body={"usageMetadata": USAGE}), Reply(body={"usageMetadata": USAGE}))
    with pytest.raises(LlmCallFailed, match="BadResponse"):
        make_gateway(max_attempts=2).call(gemini("gemini-2.5-flash", params=JUDGE_PARAMS))
    assert [e.error_type for e in llm_events(lake_log)] == ["BadResponse", "BadResponse"]


def test_a_stored_gemini_body_reads_again_as_gemini():
    raw = {"candidates": [{"content": {"parts": [{"text": "plan", "thought": True}, {"text": "A"}, {"text": "B"}]},
                           "finishReason": "STOP"}],
           "usageMetadata": {"promptTokenCount": 9, "cachedContentTokenCount": 4, "candidatesTokenCount": 2,
                             "thoughtsTokenCount": 5}}
    got = parse_recorded("gemini", raw)
    assert (got.text, got.finish_reason) == ("AB", "stop")  # a thought part is not the answer
    assert (got.usage.input_tokens, got.usage.cached_input_tokens, got.usage.output_tokens,
            got.usage.reasoning_tokens) == (9, 4, 7, 5)


def test_a_server_error_is_retried_and_a_bad_request_is_not(make_gateway, server, lake_log):
    server.script(Reply(status=503), Reply(status=400, body={"error": {"code": 400, "message": "bad",
                                                                       "status": "INVALID_ARGUMENT"}}))
    with pytest.raises(LlmCallFailed, match="not retryable"):
        make_gateway().call(gemini("gemini-2.5-flash", params=JUDGE_PARAMS))
    assert [e.error_type for e in llm_events(lake_log)] == ["HTTP503", "HTTP400"]


def test_a_studys_base_url_is_where_the_call_goes_and_part_of_its_key(lake_log, server, monkeypatch):
    from peerlake.llm_calls.gateway import Gateway

    monkeypatch.setenv("PEERLAKE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    gw = Gateway(lake_log, providers={"gemini": GeminiProvider(timeout_s=10.0)}, max_attempts=1)
    res = gw.call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS, base_url=server.url))
    assert server.requests == 1 and res.finish_reason == "stop"
    (ev,) = llm_events(lake_log)
    assert ev.endpoint is not None and "127.0.0.1" in ev.endpoint
    # without one, the setting decides where it goes (nothing answers there: a connection error)
    with pytest.raises(LlmCallFailed, match="ConnectionError"):
        gw.call(gemini("gemini-2.5-flash-lite", params=JUDGE_PARAMS, sample_index=1))
