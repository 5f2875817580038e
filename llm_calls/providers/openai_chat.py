"""OpenAI chat completions, and any server that speaks the same protocol (llama.cpp, vLLM, Ollama).

The request body is built here as plain JSON and sent through the official SDK's `extra_body`, so
exactly the same body can be sent by other clients (the throughput benchmark does) and nothing is
lost to SDK-side model validation. The response is read from the raw HTTP text for the same reason:
compatible servers add and omit fields freely.
"""

import json
import threading
from typing import Any

from peerlake.llm_calls.prompt_cache import plain_messages
from peerlake.llm_calls.providers.base import (
    BadResponse,
    BatchItem,
    BatchState,
    FatalProviderError,
    Provider,
    ProviderError,
    ProviderResponse,
    ProviderUnavailable,
    RetryableProviderError,
    retryable_status,
    until_stopped,
)
from peerlake.llm_calls.providers.image_parts import check_accepted, openai_message
from peerlake.llm_calls.providers.model_rules import (
    RequestPlan,
    openai_output_bound,
    openai_plan,
    openai_reasoning_prior,
)
from peerlake.llm_calls.types import LlmRequest, Usage
from peerlake.warehouse import settings

DEFAULT_TIMEOUT_S = 600.0  # CPU-bound compatible servers can take minutes on a long prompt
BATCH_ENDPOINT = "/v1/chat/completions"  # the `url` of every batch line and the batch's `endpoint`
# OpenAI Batch end states, mapped onto LlmBatchFinished.status; any other status is still running
# (validating, in_progress, finalizing, cancelling).
_BATCH_END = {"completed": "completed", "failed": "failed", "expired": "expired", "cancelled": "cancelled"}


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def translate_sdk_error(exc: Exception, sdk: Any) -> Exception:
    """Map an openai/anthropic SDK exception onto the two provider error kinds (same shapes)."""
    if isinstance(exc, sdk.APITimeoutError):
        return RetryableProviderError(f"timed out: {exc}", error_type="Timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return RetryableProviderError(f"connection failed: {exc}", error_type="ConnectionError")
    if isinstance(exc, sdk.APIStatusError):
        kind = RetryableProviderError if retryable_status(exc.status_code) else FatalProviderError
        return kind(str(exc), status=exc.status_code, retry_after_s=_retry_after(exc),
                    error_type=f"HTTP{exc.status_code}")
    return FatalProviderError(f"{type(exc).__name__}: {exc}", error_type=type(exc).__name__)


def _normalize_logprobs(choice: dict) -> list[dict] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return [{"token": t.get("token"), "logprob": t.get("logprob"),
             "top": [{"token": a.get("token"), "logprob": a.get("logprob")}
                     for a in t.get("top_logprobs") or []]}
            for t in content]


def parse_chat_completion(raw: dict) -> ProviderResponse:
    """ProviderResponse from a chat-completions JSON body (OpenAI shape, also llama-cpp's)."""
    # The whole body goes into the message: the gateway redacts it first and only then cuts it.
    try:
        choice = raw["choices"][0]
        message = choice["message"]
        content = message.get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise BadResponse(f"response has no choices[0].message: {raw}") from exc
    if isinstance(content, str):
        text = content
    elif content is None and (message.get("refusal") or message.get("tool_calls")):
        text = ""  # a refusal or tool call is a real answer without text; the raw body keeps it
    else:
        raise BadResponse(f"response has no choices[0].message.content: {raw}")
    u = raw.get("usage") or {}
    usage = Usage(
        input_tokens=u.get("prompt_tokens"),
        cached_input_tokens=(u.get("prompt_tokens_details") or {}).get("cached_tokens"),
        cache_write_tokens=None,  # OpenAI does not report cache writes
        output_tokens=u.get("completion_tokens"),
        reasoning_tokens=(u.get("completion_tokens_details") or {}).get("reasoning_tokens"),
    )
    return ProviderResponse(text=text, finish_reason=choice.get("finish_reason"), usage=usage,
                            raw=raw, logprobs=_normalize_logprobs(choice))


class OpenAIProvider(Provider):
    """OpenAI's API: json_schema structured output, `max_completion_tokens` (o-series/gpt-5 reject
    `max_tokens`), and the reasoning models' rules (model_rules.py)."""

    name = "openai"
    key_provider = "openai"
    cancels_on_stop = True  # a stop abandons the request in flight (base.until_stopped)

    def __init__(self, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 strict_schema: bool = False):
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.strict_schema = strict_schema  # strict mode needs additionalProperties=false everywhere
        self._clients: dict[str | None, Any] = {}
        self._lock = threading.Lock()

    # ---- request -----------------------------------------------------------------------------
    def response_format(self, schema: dict) -> dict:
        return {"type": "json_schema",
                "json_schema": {"name": "response", "schema": schema, "strict": self.strict_schema}}

    def plan(self, req: LlmRequest) -> RequestPlan:
        """The parameters sent for this model (model_rules.py: the reasoning models' rules)."""
        return openai_plan(req.model, req.params, req.top_logprobs)

    def param_changes(self, req: LlmRequest) -> dict[str, Any] | None:
        return self.plan(req).changes()

    def output_bound(self, req: LlmRequest) -> int:
        return openai_output_bound(self.plan(req))

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        return openai_reasoning_prior(req.model, req.params)

    def request_body(self, req: LlmRequest) -> dict[str, Any]:
        """The exact JSON body POSTed to /chat/completions."""
        # OpenAI caches long prompt prefixes by itself: a cache breakpoint is dropped, not sent.
        # Page images (llm_calls/images.py) become content parts; a model that takes none refuses them.
        check_accepted(self.name, req)
        body: dict[str, Any] = {"model": req.model,
                                "messages": [openai_message(m) for m in plain_messages(req.messages)],
                                **self.plan(req).params}
        if req.response_schema is not None:
            body["response_format"] = self.response_format(req.response_schema)
        if req.top_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = req.top_logprobs
        return body

    # ---- transport ---------------------------------------------------------------------------
    def resolve_base_url(self, req: LlmRequest) -> str | None:
        return self.base_url

    def endpoint(self, req: LlmRequest) -> str | None:
        return self.resolve_base_url(req)

    def api_key(self) -> str | None:
        return settings.api_key(self.key_provider)

    def ensure_ready(self) -> None:
        if not self.api_key():
            raise ProviderUnavailable(
                f"no API key for provider {self.name!r}: set {settings.API_KEY_ENV[self.key_provider]}")

    def client(self, base_url: str | None) -> Any:
        with self._lock:
            if base_url not in self._clients:
                import openai

                # The key is read from the environment per request, never kept on this object.
                self._clients[base_url] = openai.OpenAI(
                    api_key=lambda: self.api_key() or "unused", base_url=base_url,
                    max_retries=0, timeout=self.timeout_s)  # the gateway owns retries
            return self._clients[base_url]

    def complete(self, req: LlmRequest) -> ProviderResponse:
        import openai

        body = self.request_body(req)
        model, messages = body.pop("model"), body.pop("messages")
        client = self.client(self.resolve_base_url(req))

        def send() -> str:
            return client.chat.completions.with_raw_response.create(model=model, messages=messages,
                                                                    extra_body=body).text

        try:
            text = until_stopped(send, f"{self.name}/{model} request") if self.cancels_on_stop else send()
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, openai) from exc
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {text!r}") from exc
        return parse_chat_completion(raw)


    # ---- batch API (https://platform.openai.com/docs/guides/batch) ----------------------------
    # Upload a JSONL file (purpose "batch"), create a batch over it, poll it, then read its output
    # file (answers) and error file (failed lines); lines are matched by custom_id, never by order.
    supports_batch = True

    def batch_line(self, custom_id: str, req: LlmRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": BATCH_ENDPOINT, "body": self.request_body(req)}

    def _sdk(self, fn: Any, *args: Any, **kwargs: Any) -> dict:
        """One SDK call through its raw response, read as JSON (errors mapped like `complete`'s)."""
        import openai

        try:
            text = fn(*args, **kwargs).text
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, openai) from exc
        try:
            return json.loads(text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {text!r}") from exc

    def submit_batch(self, lines: list[dict[str, Any]]) -> str:
        client = self.client(self.base_url)
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        uploaded = self._sdk(client.files.with_raw_response.create,
                             file=("peerlake-batch.jsonl", data, "application/jsonl"), purpose="batch")
        batch = self._sdk(client.batches.with_raw_response.create, input_file_id=uploaded["id"],
                          endpoint=BATCH_ENDPOINT, completion_window="24h")
        return batch["id"]

    def poll_batch(self, batch_id: str) -> BatchState:
        raw = self._sdk(self.client(self.base_url).batches.with_raw_response.retrieve, batch_id)
        status = raw.get("status")
        return BatchState(batch_id=batch_id, ended=status in _BATCH_END, status=_BATCH_END.get(status, status),
                          raw=raw)

    def _file_text(self, file_id: str | None) -> str:
        if not file_id:
            return ""
        import openai

        try:
            return self.client(self.base_url).files.content(file_id).text
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, openai) from exc

    def batch_results(self, state: BatchState) -> tuple[list[BatchItem], str]:
        text = self._file_text(state.raw.get("output_file_id")) + self._file_text(state.raw.get("error_file_id"))
        return [openai_batch_item(json.loads(line)) for line in text.splitlines() if line.strip()], text


def openai_batch_item(line: dict) -> BatchItem:
    """One output- or error-file line: `response.body` is a chat completion when status_code is 200."""
    custom_id = line.get("custom_id") or ""
    response = line.get("response") or None
    if response is not None and response.get("status_code") == 200:
        try:
            return BatchItem(custom_id, parse_chat_completion(response.get("body") or {}))
        except ProviderError as exc:
            return BatchItem(custom_id, None, exc)
    if response is not None:  # the request was made and refused: an HTTP error like a direct call's
        status = int(response.get("status_code") or 0)
        kind = RetryableProviderError if retryable_status(status) else FatalProviderError
        return BatchItem(custom_id, None, kind(f"batch item: {response.get('body')}", status=status,
                                               error_type=f"HTTP{status}"))
    # No response at all (expired or cancelled before it ran): the same request may well run next time.
    err = line.get("error") or {}
    return BatchItem(custom_id, None, RetryableProviderError(
        f"batch item: {err.get('message') or err}", error_type=str(err.get("code") or "BatchItemError")))


class OpenAICompatibleProvider(OpenAIProvider):
    """A self-hosted OpenAI-compatible server at `req.base_url` (or PEERLAKE_BASE_URL).

    Structured output is sent as `{"type": "json_object", "schema": …}`: llama.cpp's servers (C++
    and llama_cpp.server) enforce the schema from it, vLLM and Ollama accept it and enforce JSON,
    whereas `{"type": "json_schema"}` makes llama_cpp.server answer 500 (STACK_NOTES). Prompts
    should therefore still describe the expected JSON in words.
    """

    name = "openai_compatible"
    key_provider = "openai_compatible"
    supports_batch = False  # llama.cpp's and Ollama's servers have no /batches; calls go one by one
    # A self-hosted server's call in flight finishes and is recorded after a stop, as before: it costs
    # nothing, and `peerlake run` says a self-hosted server's calls finish first (tests/commands/test_signals.py).
    cancels_on_stop = False

    def response_format(self, schema: dict) -> dict:
        return {"type": "json_object", "schema": schema}

    def plan(self, req: LlmRequest) -> RequestPlan:
        # Sent as asked: a self-hosted server's model is not OpenAI's, and older servers only know max_tokens.
        return RequestPlan(dict(req.params))

    def output_bound(self, req: LlmRequest) -> int:
        return Provider.output_bound(self, req)  # the asked max_tokens: no headroom is added here

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        return None  # a self-hosted model's reasoning is counted in its output history, not assumed

    def endpoint(self, req: LlmRequest) -> str | None:
        return req.base_url or self.base_url or settings.reviewer_defaults().base_url

    def resolve_base_url(self, req: LlmRequest) -> str:
        url = self.endpoint(req)
        if not url:
            raise ProviderUnavailable("provider openai_compatible needs a base URL: set PEERLAKE_BASE_URL "
                                      "or LlmRequest.base_url (e.g. http://127.0.0.1:8080/v1)")
        return url

    def api_key(self) -> str | None:
        # Most self-hosted servers ignore the key, but the SDK insists on one.
        return settings.api_key(self.key_provider) or "not-needed"

    def ensure_ready(self) -> None:
        pass  # the base URL may come per request, so it is checked in complete()

    def complete(self, req: LlmRequest) -> ProviderResponse:
        try:
            self.resolve_base_url(req)
        except ProviderUnavailable as exc:
            raise FatalProviderError(str(exc), error_type="NoBaseUrl") from exc
        return super().complete(req)
