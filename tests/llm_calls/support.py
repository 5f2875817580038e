"""Helpers shared by the gateway tests: fake keys, provider wiring, a request builder."""

from peerlake.llm_calls.providers.anthropic_messages import AnthropicProvider
from peerlake.llm_calls.providers.gemini import GeminiProvider
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider, OpenAIProvider
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse.log import EventLog

FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-test-PEERLAKE-openai-9f8e7d6c5b4a",
    "ANTHROPIC_API_KEY": "sk-ant-test-PEERLAKE-anthropic-1a2b3c4d",
    "PEERLAKE_OPENAI_COMPATIBLE_API_KEY": "compat-PEERLAKE-secret-55aa66bb",
    "GEMINI_API_KEY": "gemini-test-PEERLAKE-key-77cc88dd",
    "GOOGLE_API_KEY": "google-test-PEERLAKE-key-99ee00ff",  # read first, as Google's SDKs do
}


def providers_for(server, timeout_s: float = 10.0) -> dict:
    return {"openai": OpenAIProvider(base_url=server.openai_base_url, timeout_s=timeout_s),
            "openai_compatible": OpenAICompatibleProvider(base_url=server.openai_base_url, timeout_s=timeout_s),
            "anthropic": AnthropicProvider(base_url=server.url, timeout_s=timeout_s),
            "gemini": GeminiProvider(base_url=server.url, timeout_s=timeout_s)}


def request(provider: str = "openai", model: str = "gpt-4.1-mini", **kw) -> LlmRequest:
    kw.setdefault("messages", ({"role": "system", "content": "You review papers."},
                               {"role": "user", "content": "Rate this paper."}))
    kw.setdefault("params", {"temperature": 0.7, "max_tokens": 50, "seed": kw.get("sample_index", 0)})
    kw.setdefault("response_schema", {"type": "object", "properties": {"score": {"type": "integer"}}})
    kw.setdefault("prompt_template", "review_v1")
    kw.setdefault("prompt_hash", "abc123")
    kw.setdefault("subject_id", "paper-1")
    return LlmRequest(provider=provider, model=model, **kw)


def llm_events(log: EventLog) -> list:
    return sorted(log.iter_events("llm_call"), key=lambda e: (e.occurred_at, e.attempt))
