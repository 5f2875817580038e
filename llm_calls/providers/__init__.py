"""Model providers behind one small interface; the gateway picks one by `LlmRequest.provider`."""

from llm_calls.providers.base import (
    BadResponse,
    BatchItem,
    BatchState,
    FatalProviderError,
    Provider,
    ProviderError,
    ProviderResponse,
    ProviderUnavailable,
    RetryableProviderError,
    UnsupportedRequest,
)
from warehouse.settings import PROVIDERS as PROVIDER_NAMES  # one list: settings checks $PEERLAKE_PROVIDER against it


def make_provider(name: str) -> Provider:
    """The default provider for a name; imports its SDK only when first needed."""
    if name == "local":
        from llm_calls.providers.local import LocalProvider
        return LocalProvider()
    if name == "openai":
        from llm_calls.providers.openai_chat import OpenAIProvider
        return OpenAIProvider()
    if name == "openai_compatible":
        from llm_calls.providers.openai_chat import OpenAICompatibleProvider
        return OpenAICompatibleProvider()
    if name == "anthropic":
        from llm_calls.providers.anthropic_messages import AnthropicProvider
        return AnthropicProvider()
    raise ProviderUnavailable(f"unknown provider {name!r}; expected one of {', '.join(PROVIDER_NAMES)}")


def parse_recorded(provider: str, raw: dict) -> ProviderResponse:
    """Read a stored response body (an llm_call's response blob) as the provider that received it read it:
    Anthropic's Messages shape, or the chat-completions shape every other provider answers in (the
    local one included). BadResponse when the body is not of that shape."""
    if provider == "anthropic":
        from llm_calls.providers.anthropic_messages import parse_message
        return parse_message(raw)
    from llm_calls.providers.openai_chat import parse_chat_completion
    return parse_chat_completion(raw)


__all__ = [
    "PROVIDER_NAMES",
    "BadResponse",
    "BatchItem",
    "BatchState",
    "FatalProviderError",
    "Provider",
    "ProviderError",
    "ProviderResponse",
    "ProviderUnavailable",
    "RetryableProviderError",
    "UnsupportedRequest",
    "make_provider",
    "parse_recorded",
]
