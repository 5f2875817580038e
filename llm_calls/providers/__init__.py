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
]
