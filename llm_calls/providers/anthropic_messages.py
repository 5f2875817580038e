"""Anthropic's messages API through the official SDK, and its Message Batches API."""

import json
import threading
from typing import Any

from peerlake.llm_calls.prompt_cache import (
    MAX_ANTHROPIC_BREAKPOINTS,
    anthropic_blocks,
    anthropic_message,
    count_breakpoints,
)
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
    until_stopped,
)
from peerlake.llm_calls.providers.image_parts import anthropic_with_images, check_accepted
from peerlake.llm_calls.providers.model_rules import (
    ANTHROPIC_DEFAULT_MAX_TOKENS,
    RequestPlan,
    anthropic_output_bound,
    anthropic_plan,
    anthropic_thinking_prior,
)
from peerlake.llm_calls.providers.openai_chat import DEFAULT_TIMEOUT_S, translate_sdk_error
from peerlake.llm_calls.types import LlmRequest, Usage
from peerlake.warehouse import settings

DEFAULT_MAX_TOKENS = ANTHROPIC_DEFAULT_MAX_TOKENS  # the API requires max_tokens; used when params has none
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
    """System messages are joined into the `system` field; logprobs are not offered by the API (a
    request for them is refused before any call), thinking follows model_rules.py."""

    name = "anthropic"
    cancels_on_stop = True  # a stop abandons the request in flight (base.until_stopped)

    def __init__(self, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.base_url = base_url
        self.timeout_s = timeout_s
        self._client: Any = None
        self._lock = threading.Lock()

    def request_body(self, req: LlmRequest) -> dict[str, Any]:
        check_accepted(self.name, req)
        body: dict[str, Any] = {
            "model": req.model,
            # A cache breakpoint (llm_calls/prompt_cache.py) becomes cache_control on a text block;
            # page images (llm_calls/images.py) follow the text as image blocks.
            "messages": [anthropic_with_images(m, anthropic_message(m)) for m in req.messages
                         if m["role"] != "system"],
        }
        plan = self.plan(req)
        if system := self._system(req):
            body["system"] = system
        if count_breakpoints(body) > MAX_ANTHROPIC_BREAKPOINTS:
            raise FatalProviderError(f"more than {MAX_ANTHROPIC_BREAKPOINTS} cache breakpoints in one request",
                                     error_type="BadParams")
        # `seed` labels a sample for replay; Anthropic has no seed, so it is not sent (recorded as dropped).
        body.update(plan.params)
        if req.response_schema is not None:
            body["output_config"] = {"format": {"type": "json_schema", "schema": req.response_schema}}
        return body

    def plan(self, req: LlmRequest) -> RequestPlan:
        """max_tokens (required), the sampling parameters the model takes (model_rules.py)."""
        return anthropic_plan(req.model, req.params, req.top_logprobs, _BODY_PARAMS)

    def param_changes(self, req: LlmRequest) -> dict[str, Any] | None:
        return self.plan(req).changes()

    def output_bound(self, req: LlmRequest) -> int:
        return anthropic_output_bound(self.plan(req))

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        return anthropic_thinking_prior(req.params)

    @staticmethod
    def _system(req: LlmRequest) -> str | list[dict[str, Any]]:
        """System messages joined into one string, or into text blocks when one is marked for caching."""
        system = [m for m in req.messages if m["role"] == "system"]
        if not any(anthropic_blocks(m) for m in system):
            return "\n\n".join(m["content"] for m in system)
        blocks: list[dict[str, Any]] = []
        for m in system:
            blocks.extend(anthropic_blocks(m) or [{"type": "text", "text": m["content"]}])
        return blocks

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
        client = self.client()

        def send() -> str:
            return client.messages.with_raw_response.create(**required, extra_body=body).http_response.text

        try:
            text = until_stopped(send, f"anthropic/{required['model']} request")
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, anthropic) from exc
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {text!r}") from exc
        return parse_message(raw)

    # ---- Message Batches (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing) --
    # POST /v1/messages/batches {"requests": [{custom_id, params}]}; poll GET …/{id} until
    # processing_status is "ended"; then GET its results_url: JSONL lines {custom_id, result} with
    # result.type succeeded (result.message) | errored (result.error) | canceled | expired.
    supports_batch = True

    def batch_line(self, custom_id: str, req: LlmRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "params": self.request_body(req)}

    def _sdk(self, fn: Any, *args: Any, **kwargs: Any) -> str:
        import anthropic

        try:
            return fn(*args, **kwargs).http_response.text
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, anthropic) from exc

    @staticmethod
    def _json(text: str) -> dict:
        try:
            return json.loads(text)
        except ValueError as exc:
            raise BadResponse(f"response is not JSON: {text!r}") from exc

    def submit_batch(self, lines: list[dict[str, Any]]) -> str:
        return self._json(self._sdk(self.client().messages.batches.with_raw_response.create, requests=lines))["id"]

    def poll_batch(self, batch_id: str) -> BatchState:
        raw = self._json(self._sdk(self.client().messages.batches.with_raw_response.retrieve, batch_id))
        ended = raw.get("processing_status") == "ended"
        return BatchState(batch_id=batch_id, ended=ended, status=_end_status(raw) if ended else
                          str(raw.get("processing_status")), raw=raw)

    def batch_results(self, state: BatchState) -> tuple[list[BatchItem], str]:
        import anthropic

        url = state.raw.get("results_url")
        if not url:
            return [], ""  # an ended batch always names one; without it every item counts as failed
        try:
            # results_url is absolute; the SDK's own `results()` would poll the batch once more first.
            text = self.client().get(url, cast_to=str, options={"headers": {"Accept": "application/binary"}})
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, anthropic) from exc
        return [anthropic_batch_item(json.loads(line)) for line in text.splitlines() if line.strip()], text


def _end_status(raw: dict) -> str:
    """An ended batch in LlmBatchFinished's words: cancelled if cancelling was asked, expired if
    nothing ran in the 24 h window, else completed (items may still have errored)."""
    counts = raw.get("request_counts") or {}
    if raw.get("cancel_initiated_at"):
        return "cancelled"
    if counts.get("expired") and not (counts.get("succeeded") or counts.get("errored")):
        return "expired"
    return "completed"


def anthropic_batch_item(line: dict) -> BatchItem:
    custom_id = line.get("custom_id") or ""
    result = line.get("result") or {}
    kind = result.get("type")
    if kind == "succeeded":
        try:
            return BatchItem(custom_id, parse_message(result.get("message") or {}))
        except ProviderError as exc:
            return BatchItem(custom_id, None, exc)
    if kind == "errored":
        # result.error is an error response: {"type": "error", "error": {"type", "message"}}.
        err = (result.get("error") or {}).get("error") or {}
        err_type = str(err.get("type") or "api_error")
        # A request the API refuses fails again; overload or a server error may not.
        retryable = err_type not in ("invalid_request_error", "authentication_error", "permission_error",
                                     "not_found_error", "request_too_large")
        cls = RetryableProviderError if retryable else FatalProviderError
        return BatchItem(custom_id, None, cls(f"batch item: {err.get('message') or err}", error_type=err_type))
    # canceled / expired: never ran, so a new batch may well answer it.
    return BatchItem(custom_id, None, RetryableProviderError(f"batch item {kind}", error_type=f"Batch{kind}"))
