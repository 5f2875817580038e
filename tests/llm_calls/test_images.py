"""Page images in requests: each API's content parts arrive with the blob's bytes as base64, the
recorded request keeps only the hashes, and a provider or model that takes no images refuses clearly
(nothing sent)."""

import base64
import json
from pathlib import Path

import pytest

from peerlake.llm_calls.gateway import LlmCallFailed
from peerlake.llm_calls.images import accepts_images, with_image_data
from peerlake.llm_calls.providers.image_parts import ImagesNotAccepted
from peerlake.llm_calls.providers.local import LocalProvider
from tests.llm_calls.support import llm_events, request

# Any bytes would do for the wire (providers do not decode them); a real 1x1 PNG keeps it honest.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
                       "AAAABJRU5ErkJggg==")
JPEG = b"\xff\xd8\xff\xe0 not a real jpeg, the wire does not care"


def _messages(sha_png: str, sha_jpeg: str) -> tuple[dict, ...]:
    return ({"role": "system", "content": "You review papers."},
            {"role": "user", "content": "PAGE TEXT. Rate it.",
             "images": [{"sha256": sha_png, "media_type": "image/png"},
                        {"sha256": sha_jpeg, "media_type": "image/jpeg"}]})


@pytest.fixture
def blobs(lake_log):
    return lake_log.blobs.put(PNG), lake_log.blobs.put(JPEG)


@pytest.mark.parametrize("provider", ["openai", "openai_compatible"])
def test_openai_shapes_get_text_then_image_url_parts_with_data_urls(make_gateway, server, lake_log, blobs,
                                                                    monkeypatch, provider):
    monkeypatch.setenv("PEERLAKE_COMPATIBLE_IMAGES", "1")  # the loopback "model" has no vision marker
    sha_png, sha_jpeg = blobs
    gw = make_gateway()
    req = request(provider=provider, model="gpt-4o-mini", messages=_messages(sha_png, sha_jpeg))
    gw.call(req)
    [body] = server.bodies
    assert body["messages"][0] == {"role": "system", "content": "You review papers."}
    assert body["messages"][1] == {"role": "user", "content": [
        {"type": "text", "text": "PAGE TEXT. Rate it."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()}}]}
    # The recorded request keeps the hashes, never the bytes; so does the event.
    [ev] = llm_events(lake_log)
    stored = lake_log.blobs.get_text(ev.request_sha256)
    assert json.loads(stored)["messages"][1]["images"] == list(_messages(sha_png, sha_jpeg)[1]["images"])
    assert base64.b64encode(PNG).decode() not in stored and "data:image" not in stored
    assert "base64" not in json.dumps(ev.__dict__, default=str)
    # The images are part of the request: the same request replays, a different image is a new one.
    gw.call(req)
    assert server.requests == 1
    gw.call(request(provider=provider, model="gpt-4o-mini", messages=_messages(sha_jpeg, sha_png)))
    assert server.requests == 2


def test_anthropic_gets_text_blocks_then_base64_image_blocks(make_gateway, server, blobs):
    sha_png, sha_jpeg = blobs
    messages = _messages(sha_png, sha_jpeg)
    user = {**messages[1], "cache_breakpoint": len("PAGE TEXT.")}  # the split at a breakpoint still holds
    make_gateway().call(request(provider="anthropic", model="claude-sonnet-4-6", messages=(messages[0], user)))
    [body] = server.bodies
    assert body["system"] == "You review papers."
    assert body["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "PAGE TEXT.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": " Rate it."},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(PNG).decode()}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                     "data": base64.b64encode(JPEG).decode()}}]}]


def test_gemini_gets_the_text_part_then_inline_data_parts(make_gateway, server, blobs):
    sha_png, sha_jpeg = blobs
    make_gateway().call(request(provider="gemini", model="gemini-2.5-flash", messages=_messages(sha_png, sha_jpeg)))
    [body] = server.bodies
    assert server.refused == []
    assert body["systemInstruction"] == {"parts": [{"text": "You review papers."}]}
    assert body["contents"] == [{"role": "user", "parts": [
        {"text": "PAGE TEXT. Rate it."},
        {"inline_data": {"mime_type": "image/png", "data": base64.b64encode(PNG).decode()}},
        {"inline_data": {"mime_type": "image/jpeg", "data": base64.b64encode(JPEG).decode()}}]}]


@pytest.mark.parametrize(("provider", "model", "limit"), [("anthropic", "claude-sonnet-4-6", 100),
                                                          ("openai", "gpt-4o", 500)])
def test_more_images_than_the_provider_takes_are_refused_before_sending(make_gateway, server, blobs, provider,
                                                                        model, limit):
    """Anthropic's vision page: 100 images a request; OpenAI's images guide: 500 (the APIs answer 400)."""
    one = {"sha256": blobs[0], "media_type": "image/png"}
    over = ({"role": "user", "content": "Rate it.", "images": [one] * (limit + 1)},)
    # (the test's fake keys contain the provider's name, so redaction masks it in the message)
    with pytest.raises(LlmCallFailed, match=f"{limit + 1} images: over .*'s {limit} a request"):
        make_gateway().call(request(provider=provider, model=model, messages=over))
    assert server.requests == 0
    make_gateway().call(request(provider=provider, model=model,
                                messages=({**over[0], "images": [one] * limit},)))  # at the limit: sent
    assert server.requests == 1


def test_a_model_without_vision_refuses_images_before_sending(make_gateway, server, lake_log, blobs, monkeypatch):
    monkeypatch.delenv("PEERLAKE_COMPATIBLE_IMAGES", raising=False)
    gw = make_gateway()
    for provider, model in (("openai", "gpt-3.5-turbo"), ("openai_compatible", "qwen2.5-1.5b-instruct")):
        with pytest.raises(LlmCallFailed, match="ImagesNotAccepted") as info:
            gw.call(request(provider=provider, model=model, messages=_messages(*blobs)))
        assert "not known to accept images" in str(info.value)
    # The compatible server's hint (the test's fake keys contain "PEERLAKE", so redaction masks that part).
    assert "COMPATIBLE_IMAGES=1 if this server's model reads images" in str(info.value)
    assert server.requests == 0
    # Each refusal is an error event (not retried: the same request fails again).
    events = llm_events(lake_log)
    assert [(e.status, e.error_type, e.attempt) for e in events] == [("error", "ImagesNotAccepted", 1)] * 2


def test_the_local_provider_refuses_images_clearly_without_loading_a_model(blobs, lake_log):
    req = with_image_data(request(provider="local", model="qwen", messages=_messages(*blobs)), lake_log.blobs)
    # A model path that does not exist: the refusal comes first, not "model file missing".
    with pytest.raises(ImagesNotAccepted, match=r"local provider .* does not accept images"):
        LocalProvider(model_path=Path("/nonexistent/model.gguf")).complete(req)


def test_images_on_a_system_message_or_of_an_unknown_type_are_refused(make_gateway, server, blobs):
    sha_png, _ = blobs
    gw = make_gateway()
    on_system = ({"role": "system", "content": "Rules.", "images": [{"sha256": sha_png, "media_type": "image/png"}]},
                 {"role": "user", "content": "Rate it."})
    with pytest.raises(LlmCallFailed, match="a system message cannot carry them"):
        gw.call(request(provider="openai", model="gpt-4o", messages=on_system))
    tiff = ({"role": "user", "content": "Rate it.", "images": [{"sha256": sha_png, "media_type": "image/tiff"}]},)
    with pytest.raises(LlmCallFailed, match="image/tiff"):
        gw.call(request(provider="anthropic", model="claude-sonnet-4-6", messages=tiff))
    assert server.requests == 0


def test_an_image_missing_from_the_blob_store_fails_the_call_and_is_recorded(make_gateway, server, lake_log):
    missing = ({"role": "user", "content": "Rate it.", "images": [{"sha256": "ab" * 32, "media_type": "image/png"}]},)
    with pytest.raises(LlmCallFailed, match="FileNotFoundError"):
        make_gateway().call(request(provider="openai", model="gpt-4o", messages=missing))
    assert server.requests == 0 and [e.status for e in llm_events(lake_log)] == ["error"]


@pytest.mark.parametrize(("provider", "model", "expected"), [
    ("local", "anything", False),
    ("openai", "gpt-4o", True), ("openai", "gpt-4o-2024-08-06", True), ("openai", "gpt-4.1-mini", True),
    ("openai", "gpt-5", True), ("openai", "o3", True), ("openai", "o3-mini", False),
    ("openai", "gpt-3.5-turbo", False), ("openai", "gpt-4o-audio-preview", False),
    ("anthropic", "claude-sonnet-4-6", True), ("anthropic", "claude-3-haiku-20240307", True),
    ("anthropic", "claude-2.1", False),
    ("gemini", "gemini-2.5-pro", True), ("gemini", "gemini-2.5-flash-lite", True),
    ("gemini", "models/gemini-3-pro", True),
    ("gemini", "gemini-embedding-001", False), ("gemini", "gemini-2.5-flash-preview-tts", False),
    ("openai_compatible", "Qwen2.5-VL-7B-Instruct", True), ("openai_compatible", "llava-v1.6", True),
    ("openai_compatible", "qwen2.5-1.5b-instruct", False),
    ("somebody_else", "gpt-4o", False),
])
def test_accepts_images_by_provider_and_model_name(monkeypatch, provider, model, expected):
    monkeypatch.delenv("PEERLAKE_COMPATIBLE_IMAGES", raising=False)
    assert accepts_images(provider, model) is expected


def test_the_environment_forces_a_compatible_servers_answer_either_way(monkeypatch):
    monkeypatch.setenv("PEERLAKE_COMPATIBLE_IMAGES", "1")
    assert accepts_images("openai_compatible", "qwen2.5-1.5b-instruct") is True
    monkeypatch.setenv("PEERLAKE_COMPATIBLE_IMAGES", "0")
    assert accepts_images("openai_compatible", "Qwen2.5-VL-7B-Instruct") is False
    assert accepts_images("openai", "gpt-4o") is True  # hosted providers are not affected
