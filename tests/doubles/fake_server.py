"""A scriptable loopback LLM server (OpenAI chat-completions, Anthropic messages and Gemini generateContent shapes).

The fake sits at the network edge only: the real SDKs, gateway and event log run against it. Tests
queue replies (429s, 500s, slow or echoing ones); otherwise every request gets a JSON answer that
carries the server's request number, so a replayed answer is distinguishable from a new one.
Run `python -m tests.doubles.fake_server` to serve it from a separate process (prints its base URL).

Also, as their documentation describes them:
- the batch APIs (fake_batches.py): OpenAI Batch (POST /v1/files multipart with purpose "batch",
  POST /v1/batches, GET /v1/batches/{id}, GET /v1/files/{id}/content) and Anthropic Message Batches
  (POST /v1/messages/batches, GET …/{id}, GET …/{id}/results). A batch ends at its
  `batch_polls_to_end`-th poll; `fail_batch_items` makes the next items fail;
- the model families' request rules (fake_model_rules.py, on unless `enforce_model_rules=False`):
  a request shaped wrongly for its model (temperature or max_tokens to o3, thinking with temperature
  to Claude ...) gets the API's 400 and is kept in `refused`; a reasoning model spends
  `reasoning_tokens_spent` tokens of its output budget first, and answers empty when too few are left;
- prompt-cache usage (`prompt_cache=True`; off by default, when usage is the fixed `Usage`): token
  counts from the text at `chars_per_token`; OpenAI reports `prompt_tokens_details.cached_tokens`
  for a prefix repeated from an earlier request of the same model, >= 1,024 tokens, in 128-token
  steps; Anthropic reports `cache_creation_input_tokens` the first time a prefix ending at a
  `cache_control` block (>= `min_cache_tokens`) is seen and `cache_read_input_tokens` afterwards,
  both outside `input_tokens`.
- Gemini's `POST /v1beta/models/{model}:generateContent` (fake_model_rules.py's gemini_* rules): no
  `x-goog-api-key` header is Google's 403; the answer's usageMetadata counts the thoughts a thinking
  model spends first (`reasoning_tokens_spent`, inside maxOutputTokens) apart from the answer's tokens;
  the keys received are kept in `gemini_keys`, the paths (with any query) in `gemini_paths`.
"""

import contextlib
import dataclasses
import json
import re
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.doubles.fake_batches import FakeBatches
from tests.doubles.fake_model_rules import (
    anthropic_violation,
    gemini_violation,
    openai_violation,
    spend_anthropic_thinking,
    spend_gemini_thinking,
    spend_openai_reasoning,
)
from tests.doubles.fake_prompt_cache import FakePromptCache


@dataclass
class Reply:
    status: int = 200
    delay_s: float = 0.0
    body: dict | None = None  # None: the default answer (status 200) or a default error body
    raw_body: bytes | None = None  # sent as-is instead of JSON (a truncated or garbled answer)
    echo_auth: bool = False  # put the request's credentials into the error message, as some proxies do
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Usage:
    prompt_tokens: int = 120
    cached_tokens: int = 0
    cache_write_tokens: int = 0  # Anthropic shape only
    completion_tokens: int = 30
    reasoning_tokens: int = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real APIs
    # Headers and body leave in one write (a buffered wfile, flushed once per response) and with
    # TCP_NODELAY: written apart, Nagle held the body until the client's delayed ACK of the headers,
    # ~44 ms per keep-alive request, which capped any client near 22 calls/s per connection.
    disable_nagle_algorithm = True
    wbufsize = 1 << 16
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, data: bytes, content_type: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()  # here, so a client that left is seen by the except below
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and left

    def do_GET(self) -> None:
        status, payload = self.server.fake.batches.get(urlsplit(self.path).path)
        self._send(status, payload if isinstance(payload, bytes) else json.dumps(payload).encode(),
                   "application/octet-stream" if isinstance(payload, bytes) else "application/json")

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        path = urlsplit(self.path).path.rstrip("/")
        if fake.batches.handles_post(path):  # batch endpoints: not model calls, never scripted
            status, payload = fake.batches.post(path, raw, self.headers.get("content-type") or "")
            self._send(status, json.dumps(payload).encode())
            return
        body = json.loads(raw or b"{}")
        if (gemini := _gemini_model(path)) is not None:
            if not self._gemini_key_ok(fake, gemini, body):
                return
            body = {"model": gemini, **body}  # kept with the model its URL named, as the other shapes carry it
        anthropic = path.endswith("/messages")
        shape = "gemini" if gemini is not None else "anthropic" if anthropic else "openai"
        if fake.enforce_model_rules and (refusal := fake.refusal(body, shape)) is not None:
            self._send(400, json.dumps(refusal).encode())  # before any script: the API never got this far
            return
        number, reply = fake._enter(body)
        try:
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if reply.status == 200:
                payload = reply.body or {"gemini": fake.gemini_answer, "anthropic": fake.anthropic_answer,
                                         "openai": fake.openai_answer}[shape](body, number)
                if fake.enforce_model_rules and reply.raw_body is None:
                    fake.spend_reasoning(body, payload, shape)
            else:
                payload = reply.body or self._error_body(reply, shape)
            data = reply.raw_body if reply.raw_body is not None else json.dumps(payload).encode()
            self._send(reply.status, data, headers=reply.headers)
        finally:
            fake._leave()

    def _gemini_key_ok(self, fake: "FakeLlmServer", model: str, body: dict) -> bool:
        key = self.headers.get("x-goog-api-key")
        with fake._lock:
            fake.gemini_keys.append(key)
            fake.gemini_paths.append(self.path)
        if key:
            return True
        error = {"error": {"code": 403, "status": "PERMISSION_DENIED",
                           "message": "Method doesn't allow unregistered callers (callers without established "
                                      "identity). Please use API Key or other form of API consumer identity to call "
                                      "this API."}}
        with fake._lock:
            fake.refused.append(({"model": model, **body}, error))
        self._send(403, json.dumps(error).encode())
        return False

    def _error_body(self, reply: Reply, shape: str) -> dict:
        message = f"scripted error {reply.status}"
        if reply.echo_auth:
            message += (f"; authorization={self.headers.get('authorization')}"
                        f"; x-api-key={self.headers.get('x-api-key')}"
                        f"; x-goog-api-key={self.headers.get('x-goog-api-key')}")
        if shape == "gemini":
            return {"error": {"code": reply.status, "message": message, "status": "UNAVAILABLE"}}
        if shape == "anthropic":
            return {"type": "error", "error": {"type": "api_error", "message": message}}
        return {"error": {"message": message, "type": "server_error", "code": reply.status}}


def _gemini_model(path: str) -> str | None:
    """The model of a `/v1beta/models/{model}:generateContent` path, else None."""
    m = re.fullmatch(r"/v1beta/models/([^/:]+):generateContent", path)
    return m.group(1) if m else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    fake: "FakeLlmServer"


class FakeLlmServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, delay_s: float = 0.0,
                 usage: Usage | None = None, *, prompt_cache: bool = False, cache_hits: bool = True,
                 chars_per_token: int = 4, min_cache_tokens: int = 1024, batch_polls_to_end: int = 2,
                 enforce_model_rules: bool = True, reasoning_tokens_spent: int = 2000):
        self.delay_s = delay_s
        # fake_model_rules.py: a request its model family rejects is a 400 (kept in `refused`), and a
        # reasoning model spends `reasoning_tokens_spent` output tokens before it answers.
        self.enforce_model_rules = enforce_model_rules
        self.reasoning_tokens_spent = reasoning_tokens_spent
        self.refused: list[tuple[dict, dict]] = []
        self.gemini_keys: list[str | None] = []
        self.gemini_paths: list[str] = []
        self.usage = usage or Usage()
        # None: the fixed `usage` above (what the existing tests expect); else counted from the text.
        self.prompt_cache = FakePromptCache(chars_per_token, min_cache_tokens, cache_hits) if prompt_cache else None
        self.batches = FakeBatches(self, polls_to_end=batch_polls_to_end)
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.bodies: list[dict] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    # ---- lifecycle ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    def start(self) -> "FakeLlmServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeLlmServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---- scripting ---------------------------------------------------------------------------
    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order; afterwards the default answer resumes."""
        with self._lock:
            self._script.extend(replies)

    def _enter(self, body: dict) -> tuple[int, Reply]:
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.bodies.append(body)
            reply = self._script.popleft() if self._script else Reply(delay_s=self.delay_s)
            return self.requests, reply

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def refusal(self, body: dict, shape: str) -> dict | None:
        """The API's 400 body for a request its model cannot take (kept with the body), or None."""
        if shape == "gemini":
            error = gemini_violation(body["model"], {k: v for k, v in body.items() if k != "model"})
        else:
            error = anthropic_violation(body) if shape == "anthropic" else openai_violation(body)
        if error is not None:
            with self._lock:
                self.refused.append((body, error))
        return error

    def spend_reasoning(self, body: dict, payload: dict, shape: str) -> None:
        if shape == "gemini":
            spend_gemini_thinking(body["model"], body, payload, self.reasoning_tokens_spent)
        elif shape == "anthropic":
            spend_anthropic_thinking(body, payload, self.reasoning_tokens_spent)
        else:
            spend_openai_reasoning(body, payload, self.reasoning_tokens_spent)

    # ---- answers -----------------------------------------------------------------------------
    @staticmethod
    def answer_text(number: int) -> str:
        return json.dumps({"score": 4, "summary": "fine", "request_no": number})

    def fail_batch_items(self, n: int) -> None:
        """The next n batch items processed fail (a 500 / an api_error result line)."""
        self.batches.fail_next(n)

    def _usage(self, body: dict, anthropic: bool) -> Usage:
        if self.prompt_cache is None:
            return self.usage
        counted = self.prompt_cache.anthropic_usage(body) if anthropic else self.prompt_cache.openai_usage(body)
        return dataclasses.replace(self.usage, prompt_tokens=counted.prompt_tokens, cached_tokens=counted.cached_tokens,
                                   cache_write_tokens=counted.cache_write_tokens)

    def openai_answer(self, body: dict, number: int) -> dict:
        text, u = self.answer_text(number), self._usage(body, anthropic=False)
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop", "logprobs": None}
        if body.get("logprobs"):
            k = int(body.get("top_logprobs") or 0)
            choice["logprobs"] = {"content": [
                {"token": tok, "logprob": -0.25, "bytes": None,
                 "top_logprobs": [{"token": tok, "logprob": -0.25 - j, "bytes": None} for j in range(k)]}
                for tok in ("{", "\"score\"", ":", " 4")]}
        return {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model"), "choices": [choice],
                "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                          "total_tokens": u.prompt_tokens + u.completion_tokens,
                          "prompt_tokens_details": {"cached_tokens": u.cached_tokens},
                          "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens}}}

    def gemini_answer(self, body: dict, number: int) -> dict:
        u = self.usage  # the fixed usage (no prompt-cache counting for this shape)
        usage = {"promptTokenCount": u.prompt_tokens, "candidatesTokenCount": u.completion_tokens,
                 "totalTokenCount": u.prompt_tokens + u.completion_tokens}
        if u.cached_tokens:
            usage["cachedContentTokenCount"] = u.cached_tokens  # inside promptTokenCount, as Gemini counts it
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": self.answer_text(number)}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": usage, "modelVersion": body.get("model"), "responseId": f"gemini-{number}"}

    def anthropic_answer(self, body: dict, number: int) -> dict:
        u = self._usage(body, anthropic=True)
        # Anthropic counts cache reads and writes OUTSIDE input_tokens.
        uncached = u.prompt_tokens - u.cached_tokens - u.cache_write_tokens
        return {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": body.get("model"),
                "content": [{"type": "text", "text": self.answer_text(number)}],
                "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": uncached, "output_tokens": u.completion_tokens,
                          "cache_read_input_tokens": u.cached_tokens,
                          "cache_creation_input_tokens": u.cache_write_tokens}}


def main() -> None:
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    server = FakeLlmServer(delay_s=delay)
    print(server.url, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server._httpd.serve_forever()


if __name__ == "__main__":
    main()
