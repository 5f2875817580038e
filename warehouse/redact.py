"""Keep secrets out of the lake without touching the inputs and answers it exists to keep exact.
Every door to the outside (llm_calls/ for models, retrieval/ for literature searches) redacts with
these rules before it writes an event or a blob.

Two strengths, for two kinds of text:
- `redact_stored` (requests, responses, answer text): only the configured secret values and the
  values of auth-header fields are removed. Manuscript or answer text that merely *looks* like a
  key (`sk-…` in a paper about API security) is stored byte for byte.
- `redact_message` (error messages, log lines): also any run of >= 6 characters of a configured
  secret (a server echoing a cut-off key), auth headers written as text, and key-shaped tokens; the
  cut to length comes *after* redaction, so no key prefix survives at the cut.
"""

import re
from typing import Any

from peerlake.warehouse import settings

REDACTED = "[REDACTED]"
MIN_SECRET_RUN = 6  # shorter runs of a key are too common in ordinary text to mean anything
MESSAGE_MAX_CHARS = 1000

# Header names whose values are credentials, as JSON keys or as "name: value" / "name=value" text.
AUTH_HEADERS = ("authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key",
                "openai-api-key", "anthropic-api-key", "cookie", "set-cookie")
_HEADER_TEXT = re.compile(r"(?i)\b(" + "|".join(re.escape(h) for h in AUTH_HEADERS) +
                          r")(['\"]?\s*[:=]\s*['\"]?)(?:bearer\s+|basic\s+)?[^\s'\",;}]+")
# Key shapes worth scrubbing from messages even when they are not ours (a server echoing another key).
_KEY_SHAPES = [re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
               re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9_\-.~+/=]{8,}")]


def _secrets() -> list[str]:
    return sorted(settings.secret_values(), key=len, reverse=True)


def _remove_secret_values(text: str, secrets: list[str] | None = None) -> str:
    for secret in _secrets() if secrets is None else secrets:
        text = text.replace(secret, REDACTED)
    return text


def redact_stored(text: str | None) -> str | None:
    """Configured secret values only: what is stored must otherwise be exactly what was sent/received."""
    if not text:
        return text
    return _remove_secret_values(text)


def redact_payload(obj: Any, secrets: list[str] | None = None) -> Any:
    """A JSON-able value with auth-header fields blanked and secret values removed from strings."""
    if secrets is None:
        secrets = _secrets()  # read once per payload, not once per string (the gateway's hot path)
    if isinstance(obj, dict):
        return {redact_payload(k, secrets): REDACTED if isinstance(k, str) and k.lower() in AUTH_HEADERS
                else redact_payload(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact_payload(v, secrets) for v in obj]
    if isinstance(obj, str):
        return _remove_secret_values(obj, secrets)
    return obj


def _secret_runs(text: str, secrets: list[str]) -> list[tuple[int, int]]:
    """Spans of `text` covered by windows of MIN_SECRET_RUN characters that occur in a secret."""
    grams = {s[i:i + MIN_SECRET_RUN] for s in secrets for i in range(len(s) - MIN_SECRET_RUN + 1)}
    spans: list[tuple[int, int]] = []
    for i in range(len(text) - MIN_SECRET_RUN + 1):
        if text[i:i + MIN_SECRET_RUN] in grams:
            end = i + MIN_SECRET_RUN
            if spans and i <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((i, end))
    return spans


def redact_message(text: str | None, max_chars: int = MESSAGE_MAX_CHARS) -> str | None:
    """An error message or log line, safe to store: redacted first, then cut to `max_chars`."""
    if not text:
        return text
    secrets = _secrets()
    text = _remove_secret_values(text)
    spans = _secret_runs(text, secrets)
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    text = _HEADER_TEXT.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    for pattern in _KEY_SHAPES:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    if len(text) > max_chars:
        text = text[:max_chars - 1] + "…"
    return text

