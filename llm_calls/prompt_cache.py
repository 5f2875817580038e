"""The cache-breakpoint convention in request messages, and what each provider makes of it.

A message may carry `"cache_breakpoint": N` (an int) beside `role` and `content`: the prompt up to
the first N characters of this message's content is a prefix worth caching (in our reviewer
templates, the system message plus the manuscript, which every sample and every template reading
that paper repeats). Content stays one plain string, so everything that reads messages as text
(token estimates, redaction, audit) keeps working; the key is part of the request, hence of its
request_key, like any other field.

- Anthropic caches only where told: its provider splits the content at N into two text blocks and
  puts `cache_control: {"type": "ephemeral"}` on the first (`anthropic_message`). The API allows
  at most 4 breakpoints per request and ignores a prefix below its minimum (1,024 tokens for the
  Sonnet models) without an error.
- OpenAI caches every prompt prefix of >= 1,024 tokens by itself (hits in 128-token steps), so its
  providers, the compatible servers and the local model only drop the key (`plain_message`).

Templates set it with `{{ cache_breakpoint }}` (prompts/templates.py, which spells the key itself:
prompts/ may not import llm_calls/).
"""

from typing import Any

BREAKPOINT_KEY = "cache_breakpoint"
EPHEMERAL = {"type": "ephemeral"}
MAX_ANTHROPIC_BREAKPOINTS = 4


def plain_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message without the breakpoint (the provider caches prefixes on its own, or not at all)."""
    if BREAKPOINT_KEY not in message:
        return message
    return {k: v for k, v in message.items() if k != BREAKPOINT_KEY}


def plain_messages(messages: Any) -> list[dict[str, Any]]:
    return [plain_message(m) for m in messages]


def _split(content: str, at: Any) -> list[dict[str, Any]] | None:
    """Two text blocks, the first marked; None when the mark would cut off nothing (an empty block
    is an error at Anthropic)."""
    if not isinstance(at, int) or isinstance(at, bool) or not 0 < at <= len(content):
        return None
    blocks: list[dict[str, Any]] = [{"type": "text", "text": content[:at], "cache_control": dict(EPHEMERAL)}]
    if content[at:]:
        blocks.append({"type": "text", "text": content[at:]})
    return blocks


def anthropic_blocks(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The message's content as Anthropic text blocks with the breakpoint marked; None if unmarked."""
    content = message.get("content")
    if BREAKPOINT_KEY not in message or not isinstance(content, str):
        return None
    return _split(content, message[BREAKPOINT_KEY])


def anthropic_message(message: dict[str, Any]) -> dict[str, Any]:
    """A non-system message as Anthropic takes it: content split at the breakpoint, if any."""
    blocks = anthropic_blocks(message)
    out = plain_message(message)
    return out if blocks is None else {**out, "content": blocks}


def count_breakpoints(body: dict[str, Any]) -> int:
    """cache_control marks in an Anthropic body (system blocks + message blocks)."""
    blocks = list(body["system"]) if isinstance(body.get("system"), list) else []
    for m in body.get("messages") or []:
        if isinstance(m.get("content"), list):
            blocks.extend(m["content"])
    return sum(1 for b in blocks if isinstance(b, dict) and "cache_control" in b)
