"""Request and result types shared by the gateway, providers and callers."""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class LlmRequest:
    """Everything that determines a model's answer, plus labels (template, subject) for lineage.

    `sample_index` is the n-th independent sample of the same request: a different index is a
    different request (and a different `request_key`), the same index is a replay.
    """

    provider: str
    model: str
    messages: tuple[dict[str, str], ...]
    params: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, top_p, seed …
    response_schema: dict[str, Any] | None = None
    top_logprobs: int | None = None
    sample_index: int = 0
    prompt_template: str | None = None
    prompt_hash: str | None = None
    purpose: str = "review"
    subject_id: str | None = None  # e.g. the paper id the call is about
    base_url: str | None = None  # where an openai_compatible server lives; not part of the key

    def canonical(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "messages": list(self.messages),
            "params": self.params,
            "response_schema": self.response_schema,
            "top_logprobs": self.top_logprobs,
            "sample_index": self.sample_index,
            "prompt_template": self.prompt_template,
            "prompt_hash": self.prompt_hash,
            "purpose": self.purpose,
            "subject_id": self.subject_id,
        }

    @property
    def request_key(self) -> str:
        return sha256_text(canonical_json(self.canonical()))

    @property
    def reviewer_config(self) -> str:
        """Identity of a reviewer configuration: template + model + parameters + output schema.

        Excludes the sample index, the seed (set per sample) and the subject, so all samples of
        all papers under one configuration share it.
        """
        params = {k: v for k, v in self.params.items() if k != "seed"}
        ident = {
            "prompt_hash": self.prompt_hash,
            "provider": self.provider,
            "model": self.model,
            "params": params,
            "response_schema": self.response_schema,
            "top_logprobs": self.top_logprobs,
        }
        return sha256_text(canonical_json(ident))[:16]


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None  # all prompt tokens, including cached and cache-write ones
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class LlmResult:
    request_key: str
    event_id: str  # the llm_call event that holds this response (the original one on replay)
    text: str
    parsed: Any | None  # the JSON value when a response_schema was given and the text parsed
    usage: Usage
    cost_usd: float | None
    replayed: bool
    finish_reason: str | None = None
    logprobs: list[dict] | None = None  # per output token: {"token", "logprob", "top": [{token, logprob}]}
