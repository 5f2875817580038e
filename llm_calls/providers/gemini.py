"""Google's Gemini API: `POST /v1beta/models/{model}:generateContent` over plain HTTP (httpx).

Why the native REST API and not Gemini's OpenAI-compatible endpoint: the native body carries what the
cost cap and the event need exactly — `thinkingConfig.thinkingBudget` / `thinkingLevel` as numbers and
levels (the compatible endpoint maps `reasoning_effort` onto budgets it chooses), `usageMetadata` with
`thoughtsTokenCount` and `cachedContentTokenCount` apart, and the finish reasons SAFETY, RECITATION,
PROHIBITED_CONTENT … and `promptFeedback.blockReason` as Google words them. Why not the `google-genai`
SDK: one POST and one JSON body need no new dependency (httpx is already ours), and, as for OpenAI, the
exact body sent can be read and tested. Request rules per model family: model_rules.py (gemini_*).

- Request: `contents` (role user/model, text parts, a message's images as `inline_data` parts), system
  messages joined into `systemInstruction`,
  `generationConfig` (temperature, topP, topK, seed, maxOutputTokens, thinkingConfig; structured output
  as `responseMimeType: application/json` + `responseJsonSchema`, which takes JSON Schema incl.
  additionalProperties, where the older `responseSchema` is an OpenAPI subset that refuses it).
  The key goes in the `x-goog-api-key` header (GEMINI_API_KEY or GOOGLE_API_KEY, warehouse/settings.py),
  never in the URL, so no logged URL carries it.
- Usage (https://ai.google.dev/api/generate-content#UsageMetadata): promptTokenCount includes the
  cached tokens (cachedContentTokenCount); candidatesTokenCount excludes the thoughts
  (thoughtsTokenCount), which are billed as output: Usage.output_tokens = candidates + thoughts.
- Finish: finishReason lower-cased ("stop", "max_tokens", "safety", "recitation", …: the spelling the
  callers already test for "max_tokens"); an answer blocked for safety or recitation has no text and is
  recorded as an ok call with empty text and that reason (its usage is billed and priced; the caller's
  parser then records the failure), never a crash; a prompt blocked before any candidate
  (promptFeedback.blockReason) likewise, as "prompt_<reason>". Thought parts (`thought: true`) are not text.
"""

import json
import threading
from typing import Any
from urllib.parse import quote

from peerlake.llm_calls.prompt_cache import plain_messages
from peerlake.llm_calls.providers.base import (
    BadResponse,
    FatalProviderError,
    Provider,
    ProviderResponse,
    ProviderUnavailable,
    RetryableProviderError,
    retryable_status,
    until_stopped,
)
from peerlake.llm_calls.providers.image_parts import check_accepted, gemini_parts
from peerlake.llm_calls.providers.model_rules import (
    RequestPlan,
    gemini_output_bound,
    gemini_plan,
    gemini_thinking_prior,
)
from peerlake.llm_calls.types import LlmRequest, Usage
from peerlake.warehouse import settings

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
DEFAULT_TIMEOUT_S = 600.0


def usage_from_gemini(u: dict) -> Usage:
    """Gemini's usageMetadata as Usage: thoughts join the output (billed as output), cached tokens are
    part of the prompt count, a tool-use prompt (none is sent here) is input too."""
    prompt, tools = u.get("promptTokenCount"), u.get("toolUsePromptTokenCount")
    answer, thoughts = u.get("candidatesTokenCount"), u.get("thoughtsTokenCount")
    output = None if answer is None and thoughts is None else (answer or 0) + (thoughts or 0)
    return Usage(input_tokens=None if prompt is None else prompt + (tools or 0),
                 cached_input_tokens=u.get("cachedContentTokenCount"), cache_write_tokens=None,
                 output_tokens=output, reasoning_tokens=thoughts)


def parse_generate_content(raw: Any) -> ProviderResponse:
    """ProviderResponse from a generateContent JSON body (see the module docstring for blocked answers)."""
    if not isinstance(raw, dict):
        raise BadResponse(f"response is not a JSON object: {raw}")
    usage = usage_from_gemini(raw.get("usageMetadata") or {})
    candidates = raw.get("candidates")
    if not candidates:
        blocked = (raw.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            return ProviderResponse(text="", finish_reason=f"prompt_{str(blocked).lower()}", usage=usage, raw=raw)
        raise BadResponse(f"response has no candidates: {raw}")  # redacted, then cut, by the gateway
    candidate = candidates[0] if isinstance(candidates, list) else None
    if not isinstance(candidate, dict):
        raise BadResponse(f"response has no candidates[0] object: {raw}")
    finish = candidate.get("finishReason")
    parts = (candidate.get("content") or {}).get("parts")
    if not isinstance(parts, list | None) or (parts is None and not finish):
        raise BadResponse(f"response has no candidates[0].content.parts: {raw}")
    text = "".join(p.get("text") or "" for p in parts or () if isinstance(p, dict) and not p.get("thought"))
    return ProviderResponse(text=text, finish_reason=str(finish).lower() if finish else None, usage=usage,
                            raw=raw, logprobs=None)


class GeminiProvider(Provider):
    """Gemini models through Google's generateContent REST API (no batch API here: calls go one by one)."""

    name = "gemini"
    cancels_on_stop = True  # a stop abandons the request in flight (base.until_stopped)

    def __init__(self, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.base_url = base_url
        self.timeout_s = timeout_s
        self._client: Any = None
        self._lock = threading.Lock()

    # ---- request -----------------------------------------------------------------------------
    def plan(self, req: LlmRequest) -> RequestPlan:
        """The generationConfig sent for this model (model_rules.py: thinking per family, the output room)."""
        return gemini_plan(req.model, req.params, req.top_logprobs)

    def param_changes(self, req: LlmRequest) -> dict[str, Any] | None:
        return self.plan(req).changes()

    def output_bound(self, req: LlmRequest) -> int:
        return gemini_output_bound(self.plan(req))

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        return gemini_thinking_prior(req.model, req.params)

    def request_body(self, req: LlmRequest) -> dict[str, Any]:
        """The exact JSON body POSTed to generateContent."""
        check_accepted(self.name, req)  # images: a model that takes none, or over Gemini's limits, refuses
        messages = plain_messages(req.messages)  # Gemini caches long prefixes itself (implicit caching)
        body: dict[str, Any] = {"contents": [
            {"role": "model" if m["role"] == "assistant" else "user", "parts": gemini_parts(m)}  # text, images
            for m in messages if m["role"] != "system"]}
        if system := [m["content"] for m in messages if m["role"] == "system"]:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
        config = dict(self.plan(req).params)
        if req.response_schema is not None:
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = req.response_schema
        if config:
            body["generationConfig"] = config
        return body

    # ---- transport ---------------------------------------------------------------------------
    def endpoint(self, req: LlmRequest) -> str | None:
        """A study's base_url (a proxy of Google's API), else this provider's: part of the request_key."""
        return req.base_url or self.base_url

    def resolve_base_url(self, req: LlmRequest | None = None) -> str | None:
        """Where calls go: the endpoint, else $PEERLAKE_GEMINI_BASE_URL; None: Google's own (as the OpenAI
        provider answers for its default endpoint)."""
        return (self.endpoint(req) if req is not None else self.base_url) or settings.gemini_base_url()

    def ensure_ready(self) -> None:
        if not settings.api_key(self.name):
            raise ProviderUnavailable(f"no API key for provider 'gemini': set {settings.API_KEY_ENV['gemini']} "
                                      f"(or {', '.join(settings.API_KEY_ALIASES['gemini'])})")

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(timeout=self.timeout_s)  # the gateway owns retries
            return self._client

    def complete(self, req: LlmRequest) -> ProviderResponse:
        import httpx

        body = self.request_body(req)
        model = quote(req.model.removeprefix("models/"), safe="-._")
        base = (self.resolve_base_url(req) or DEFAULT_BASE_URL).rstrip("/")
        url = f"{base}/{API_VERSION}/models/{model}:generateContent"
        # The key is read from the environment per request, never kept on this object.
        headers = {"x-goog-api-key": settings.api_key(self.name) or "", "content-type": "application/json"}
        client, content = self.client(), json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            # httpx reads the whole body before post() returns, so the thread abandoned on a stop holds it all
            response = until_stopped(lambda: client.post(url, content=content, headers=headers),
                                     f"gemini/{model} request")
        except httpx.TimeoutException as exc:
            raise RetryableProviderError(f"timed out: {exc}", error_type="Timeout") from exc
        except httpx.HTTPError as exc:
            raise RetryableProviderError(f"connection failed: {exc}", error_type="ConnectionError") from exc
        if response.status_code != 200:
            kind = RetryableProviderError if retryable_status(response.status_code) else FatalProviderError
            raise kind(f"HTTP {response.status_code}: {response.text}", status=response.status_code,
                       retry_after_s=_retry_after(response.headers.get("retry-after")),
                       error_type=f"HTTP{response.status_code}")
        try:
            raw = json.loads(response.text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {response.text!r}") from exc
        return parse_generate_content(raw)


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
