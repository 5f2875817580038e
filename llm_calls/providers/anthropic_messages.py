"""Anthropic's messages API through the official SDK."""

import json
import threading
from typing import Any

from llm_calls.providers.base import BadResponse, Provider, ProviderResponse, ProviderUnavailable
from llm_calls.providers.openai_chat import DEFAULT_TIMEOUT_S, translate_sdk_error
from llm_calls.types import LlmRequest, Usage
from warehouse import settings

DEFAULT_MAX_TOKENS = 1024  # the API requires max_tokens; used when params has none
# Sampling parameters this SDK version has no keyword for; they still go in the JSON body.
_BODY_PARAMS = ("temperature", "top_p", "top_k", "stop_sequences", "metadata", "thinking")


def usage_from_anthropic(u: dict) -> Usage:
    """Anthropic's input_tokens EXCLUDES cache reads and writes; Usage.input_tokens is the total."""
    uncached = u.get("input_tokens")
    cached = u.get("cache_read_input_tokens")
    written = u.get("cache_creation_input_tokens")
    total = None if uncached is None else uncached + (cached or 0) + (written or 0)
    thinking = (u.get("output_tokens_details") or {}).get("thinking_tokens")
    return Usage(input_tokens=total, cached_input_tokens=cached, cache_write_tokens=written,
                 output_tokens=u.get("output_tokens"), reasoning_tokens=thinking)


def parse_message(raw: dict) -> ProviderResponse:
    blocks = raw.get("content")
    if not isinstance(blocks, list):
        raise BadResponse(f"response has no content list: {raw}")  # redacted, then cut, by the gateway
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    return ProviderResponse(text=text, finish_reason=raw.get("stop_reason"),
                            usage=usage_from_anthropic(raw.get("usage") or {}), raw=raw, logprobs=None)


class AnthropicProvider(Provider):
    """System messages are joined into the `system` field; logprobs are not offered by the API."""

    name = "anthropic"

    def __init__(self, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.base_url = base_url
        self.timeout_s = timeout_s
        self._client: Any = None
        self._lock = threading.Lock()

    def request_body(self, req: LlmRequest) -> dict[str, Any]:
        system = "\n\n".join(m["content"] for m in req.messages if m["role"] == "system")
        body: dict[str, Any] = {
            "model": req.model,
            "messages": [m for m in req.messages if m["role"] != "system"],
            "max_tokens": int(req.params.get("max_tokens", DEFAULT_MAX_TOKENS)),
        }
        if system:
            body["system"] = system
        # `seed` labels a sample for replay; Anthropic has no seed, so it is not sent.
        body.update({k: v for k, v in req.params.items() if k in _BODY_PARAMS})
        if req.response_schema is not None:
            body["output_config"] = {"format": {"type": "json_schema", "schema": req.response_schema}}
        return body

    def endpoint(self, req: LlmRequest) -> str | None:
        return self.base_url

    def ensure_ready(self) -> None:
        if not settings.api_key("anthropic"):
            raise ProviderUnavailable(
                f"no API key for provider 'anthropic': set {settings.API_KEY_ENV['anthropic']}")

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import anthropic

                self._client = anthropic.Anthropic(api_key=settings.api_key("anthropic") or "unused",
                                                   base_url=self.base_url, max_retries=0,
                                                   timeout=self.timeout_s)
            return self._client

    def complete(self, req: LlmRequest) -> ProviderResponse:
        import anthropic

        body = self.request_body(req)
        required = {k: body.pop(k) for k in ("model", "messages", "max_tokens")}
        try:
            raw_response = self.client().messages.with_raw_response.create(**required, extra_body=body)
            text = raw_response.http_response.text
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, anthropic) from exc
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {text!r}") from exc
        return parse_message(raw)
