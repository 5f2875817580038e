"""Keep API keys out of retrieval events: the same rules as llm_calls/redact.py (a sibling layer,
so not imported), cut down to what a search stores — error messages and result text.

- `redact_stored` (results): only the configured secret values are removed; a title that merely
  looks like a key is kept byte for byte.
- `redact_message` (errors): also any run of >= 6 characters of a secret (a server echoing a cut-off
  key), auth headers written as text and key-shaped tokens; cut to length after redaction.
"""

import re

from warehouse import settings

REDACTED = "[REDACTED]"
MIN_SECRET_RUN = 6  # shorter runs of a key are too common in ordinary text to mean anything
MESSAGE_MAX_CHARS = 1000

_AUTH_HEADERS = ("authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie")
_HEADER_TEXT = re.compile(r"(?i)\b(" + "|".join(re.escape(h) for h in _AUTH_HEADERS) +
                          r")(['\"]?\s*[:=]\s*['\"]?)(?:bearer\s+|basic\s+)?[^\s'\",;}]+")
_KEY_SHAPES = [re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9_\-.~+/=]{8,}")]


def _secrets() -> list[str]:
    return sorted(settings.secret_values(), key=len, reverse=True)


def redact_stored(text: str) -> str:
    for secret in _secrets():
        text = text.replace(secret, REDACTED)
    return text


def redact_message(text: str, max_chars: int = MESSAGE_MAX_CHARS) -> str:
    secrets = _secrets()
    text = redact_stored(text)
    grams = {s[i:i + MIN_SECRET_RUN] for s in secrets for i in range(len(s) - MIN_SECRET_RUN + 1)}
    spans: list[tuple[int, int]] = []
    for i in range(len(text) - MIN_SECRET_RUN + 1):
        if text[i:i + MIN_SECRET_RUN] in grams:
            end = i + MIN_SECRET_RUN
            if spans and i <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((i, end))
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    text = _HEADER_TEXT.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    for pattern in _KEY_SHAPES:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text if len(text) <= max_chars else text[:max_chars - 1] + "…"
