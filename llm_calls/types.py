"""Request and result types shared by the gateway, providers and callers."""

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from peerlake.warehouse.canonical import canonical_json, sha256_text

# The endpoint each hosted provider's SDK uses when given no base URL. Naming it explicitly is the
# same endpoint, so it keys the same as None (old events keep their request_key).
DEFAULT_ENDPOINTS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_endpoint(provider: str, base_url: str | None) -> str | None:
    """One spelling per endpoint: lower-case scheme and host, no default port, no trailing slash,
    no query or fragment; None for the provider's default endpoint."""
    if base_url is None or not base_url.strip():
        return None
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    url = urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))
    default = DEFAULT_ENDPOINTS.get(provider)
    if default is not None and url == normalize_endpoint("", default):
        return None
    return url


@dataclass(frozen=True)
class LlmRequest:
    """Everything that determines a model's answer, plus labels (template, subject) for lineage.

    `sample_index` is the n-th independent sample of the same request: a different index is a
    different request (and a different `request_key`), the same index is a replay. `base_url` is
    the provider endpoint: part of `request_key` (normalized; the provider's default endpoint keys
    as None), so two servers that call their models by the same name never replay each other's
    answers. The gateway fills it in from the provider when the request leaves it None.
    `prompt_source` and `study` are labels, in neither `request_key` nor `reviewer_config`.
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
    base_url: str | None = None  # the provider endpoint; part of the key (see above)
    # The template's source text, stored once per prompt_hash as a blob (sha256(source) == prompt_hash).
    prompt_source: str | None = field(default=None, repr=False, compare=False)
    study: str | None = None  # the study making the call: recorded on the event for cost attribution
    # Labels of a reviewer system's step (reviewing.systems), recorded on the event; in neither key.
    # `system_config` then stands in for `reviewer_config`, so every step's call is costed to the
    # system configuration that made it.
    system: str | None = None
    system_config: str | None = None
    step: str | None = None
    round: int | None = None
    # A reviewer that reads the text ingest flagged as hidden on the rendered page (the attack arm of
    # the hidden-text experiment; the default reads the visible text). Not in `request_key`: when it
    # matters the messages differ already. In `reviewer_config` only when set, so the arms of one
    # template are two configurations and every default configuration keeps its identity.
    reads_hidden: bool = False

    @property
    def endpoint(self) -> str | None:
        return normalize_endpoint(self.provider, self.base_url)

    def canonical(self) -> dict[str, Any]:
        out = {
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
        # Only when not the default, so calls to a provider's default endpoint keep the keys
        # they had before the endpoint was part of the key (and keep replaying).
        if (endpoint := self.endpoint) is not None:
            out["endpoint"] = endpoint
        return out

    @property
    def request_key(self) -> str:
        return sha256_text(canonical_json(self.canonical()))

    @property
    def reviewer_config(self) -> str:
        """Identity of a reviewer configuration: template + model + parameters + output schema.

        Excludes the sample index, the seed (set per sample) and the subject, so all samples of
        all papers under one configuration share it. A reviewer system's step reports the system's
        configuration instead (set by reviewing.systems).
        """
        if self.system_config is not None:
            return self.system_config
        params = {k: v for k, v in self.params.items() if k != "seed"}
        ident = {
            "prompt_hash": self.prompt_hash,
            "provider": self.provider,
            "model": self.model,
            "params": params,
            "response_schema": self.response_schema,
            "top_logprobs": self.top_logprobs,
        }
        if self.reads_hidden:
            ident["reads_hidden"] = True
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
    # Made by this Dagster run: a new call, or the replay of an answer this same run recorded (a step
    # retried after its first attempt made the call). What every made/replayed count reads (progress
    # line, asset metadata, run summary), so they agree. The gateway sets it; None means `not replayed`.
    made_in_run: bool | None = None

    def __post_init__(self) -> None:
        if self.made_in_run is None:
            object.__setattr__(self, "made_in_run", not self.replayed)

    def json_object(self) -> dict | None:
        """The JSON object answered, or None. Small models wrap JSON in prose or ``` fences: the
        outermost {...} is tried then."""
        import json

        if isinstance(self.parsed, dict):
            return self.parsed
        text = self.text or ""
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            try:
                doc = json.loads(text[start:end + 1])
            except ValueError:
                return None
            return doc if isinstance(doc, dict) else None
        return None
