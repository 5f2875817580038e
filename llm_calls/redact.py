"""Scrub secrets from anything about to be logged or stored (error messages, raw responses)."""

import re

from warehouse import settings

REDACTED = "[REDACTED]"

# Key shapes worth scrubbing even when they are not ours (a server echoing some other key back).
_KEY_PATTERNS = [
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-.~+/=]{8,}"),
]


def redact(text: str | None) -> str | None:
    if not text:
        return text
    for secret in sorted(settings.secret_values(), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern in _KEY_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text
