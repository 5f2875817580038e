"""Prompt-cache usage for the loopback server, reported the way each provider reports it.

Tokens are counted from the text at a fixed number of characters per token (no tokenizer: the
benchmark compares caching with not caching on the same counts, so only the ratio matters).
- OpenAI caches every prompt automatically: a request whose prompt starts with >= 1,024 tokens seen
  in an earlier request of the same model reports them as `prompt_tokens_details.cached_tokens`,
  rounded down to 1,024 + a multiple of 128 (the cache works in 128-token steps); `prompt_tokens`
  includes them.
- Anthropic caches only up to blocks marked `cache_control`: the longest marked prefix seen before
  is read (`cache_read_input_tokens`), the rest up to the last marked block is written
  (`cache_creation_input_tokens`), prefixes below the minimum (1,024 tokens for Sonnet) are not
  cached; `input_tokens` excludes both.
The fake's caches never expire (the real ones live 5 minutes or more after the last use).
`hits=False` counts the same tokens but never reports a cache read or write: the bill of a provider
without prompt caching, the baseline the caching benchmark compares with.
"""

import hashlib
import threading
from dataclasses import dataclass
from typing import Any

OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128


def _text_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


@dataclass(frozen=True)
class PromptUsage:
    """Prompt tokens, all of them (cached and cache-write ones included), and the cache split."""

    prompt_tokens: int
    cached_tokens: int = 0
    cache_write_tokens: int = 0


class FakePromptCache:
    def __init__(self, chars_per_token: int = 4, min_cache_tokens: int = 1024, hits: bool = True):
        self.chars_per_token = chars_per_token
        self.min_cache_tokens = min_cache_tokens
        self.hits = hits
        self._lock = threading.Lock()
        self._openai_prompts: dict[str, list[str]] = {}  # model -> prompts seen
        self._anthropic_prefixes: set[str] = set()  # hashes of (model, cached prefix)

    def tokens(self, text: str) -> int:
        return -(-len(text) // self.chars_per_token)  # ceil: any text costs at least a token

    # ---- OpenAI ------------------------------------------------------------------------------
    @staticmethod
    def openai_prompt(body: dict) -> str:
        parts = []
        for m in body.get("messages") or []:
            text = "".join(str(b.get("text", "")) for b in _text_blocks(m.get("content")))
            parts.append(f"<|{m.get('role')}|>{text}")
        return "".join(parts)

    def openai_usage(self, body: dict) -> PromptUsage:
        prompt, model = self.openai_prompt(body), str(body.get("model"))
        with self._lock:
            seen = self._openai_prompts.setdefault(model, [])
            common = max((_common_prefix(prompt, p) for p in seen), default=0)
            seen.append(prompt)
        shared = common // self.chars_per_token  # whole tokens only
        cached = 0 if shared < OPENAI_MIN_TOKENS else \
            OPENAI_MIN_TOKENS + (shared - OPENAI_MIN_TOKENS) // OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS
        total = self.tokens(prompt)
        cached = min(cached, total) if self.hits else 0
        return PromptUsage(prompt_tokens=total, cached_tokens=cached)

    # ---- Anthropic ---------------------------------------------------------------------------
    def anthropic_prefixes(self, body: dict) -> tuple[str, list[str]]:
        """The whole prompt text and the prefixes ending at each cache_control block, in order."""
        blocks: list[tuple[str, dict]] = [("system", b) for b in _text_blocks(body.get("system"))]
        for m in body.get("messages") or []:
            blocks.extend((str(m.get("role")), b) for b in _text_blocks(m.get("content")))
        text, prefixes = "", []
        for role, block in blocks:
            text += f"<|{role}|>{block.get('text', '')}"
            if block.get("cache_control"):
                prefixes.append(text)
        return text, prefixes

    def anthropic_usage(self, body: dict) -> PromptUsage:
        text, prefixes = self.anthropic_prefixes(body)
        model = str(body.get("model"))
        cacheable = [p for p in prefixes if len(p) // self.chars_per_token >= self.min_cache_tokens]
        keys = [hashlib.sha256(f"{model}\0{p}".encode()).hexdigest() for p in cacheable]
        with self._lock:
            hits = [len(p) // self.chars_per_token for p, k in zip(cacheable, keys, strict=True)
                    if k in self._anthropic_prefixes]
            self._anthropic_prefixes.update(keys)
        read = max(hits, default=0)
        last = len(cacheable[-1]) // self.chars_per_token if cacheable and self.hits else 0
        read = read if self.hits else 0
        written = last - read if last > read else 0
        return PromptUsage(prompt_tokens=self.tokens(text), cached_tokens=read, cache_write_tokens=written)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # binary search on the first difference: prompts here are ~40k characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
