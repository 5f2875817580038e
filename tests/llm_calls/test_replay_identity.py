"""request_key includes the provider endpoint: two servers serving a model under the same name never
replay each other's answers; one server spelled two ways, or a provider's default spelled out, does."""

import hashlib
import json

from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider
from peerlake.llm_calls.types import LlmRequest
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import llm_events, request


def test_two_servers_with_the_same_model_name_are_two_calls(lake_log, server):
    with FakeLlmServer() as other:
        gw = Gateway(lake_log, providers={"openai_compatible": OpenAICompatibleProvider()})
        a = gw.call(request(provider="openai_compatible", model="llama", base_url=server.openai_base_url))
        b = gw.call(request(provider="openai_compatible", model="llama", base_url=other.openai_base_url))
        assert (server.requests, other.requests) == (1, 1)  # the old key replayed b from a
        assert not b.replayed and a.request_key != b.request_key
        assert {e.endpoint for e in llm_events(lake_log)} == {server.openai_base_url, other.openai_base_url}


def test_the_same_server_spelled_differently_replays(lake_log, server):
    gw = Gateway(lake_log, providers={"openai_compatible": OpenAICompatibleProvider()})
    gw.call(request(provider="openai_compatible", model="llama", base_url=server.openai_base_url))
    shouty = server.openai_base_url.replace("http://", "HTTP://") + "/"
    again = gw.call(request(provider="openai_compatible", model="llama", base_url=shouty))
    assert again.replayed and server.requests == 1


def test_server_from_the_environment_is_part_of_the_key(lake_log, server, monkeypatch):
    # A request naming no endpoint is keyed by where the provider actually sends it.
    with FakeLlmServer() as other:
        gw = Gateway(lake_log, providers={"openai_compatible": OpenAICompatibleProvider()})
        monkeypatch.setenv("PEERLAKE_BASE_URL", server.openai_base_url)
        gw.call(request(provider="openai_compatible", model="llama"))
        monkeypatch.setenv("PEERLAKE_BASE_URL", other.openai_base_url)
        moved = gw.call(request(provider="openai_compatible", model="llama"))
        assert not moved.replayed and (server.requests, other.requests) == (1, 1)


def _key_without_endpoint(req: LlmRequest) -> str:
    """The pre-endpoint request_key, computed by hand from the documented canonical fields."""
    canonical = {"provider": req.provider, "model": req.model, "messages": list(req.messages),
                 "params": req.params, "response_schema": req.response_schema,
                 "top_logprobs": req.top_logprobs, "sample_index": req.sample_index,
                 "prompt_template": req.prompt_template, "prompt_hash": req.prompt_hash,
                 "purpose": req.purpose, "subject_id": req.subject_id}
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_default_endpoint_keeps_the_old_key_so_existing_lakes_still_replay():
    plain = request(provider="openai", model="gpt-4.1-mini")
    spelled_out = request(provider="openai", model="gpt-4.1-mini", base_url="https://API.openai.com/v1/")
    assert plain.request_key == spelled_out.request_key == _key_without_endpoint(plain)
    local = request(provider="local", model="qwen")
    assert local.request_key == _key_without_endpoint(local)
    custom = request(provider="openai", model="gpt-4.1-mini", base_url="https://proxy.example/v1")
    assert custom.request_key != plain.request_key


def test_study_and_prompt_source_are_labels_not_identity():
    base = request(provider="openai_compatible", model="m")
    labelled = request(provider="openai_compatible", model="m", study="s", prompt_source="{# … #}")
    assert labelled.reviewer_config == base.reviewer_config
    assert labelled.request_key == base.request_key
