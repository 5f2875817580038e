"""Model providers behind one small interface; the gateway picks one by `LlmRequest.provider`."""

from peerlake.llm_calls.providers.base import (
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
from peerlake.warehouse.registry import Registry
from peerlake.warehouse.settings import PROVIDER_CLASSES

# name -> Provider class, registered lazily from settings' table (why it lives there: see it), so naming
# a provider imports nothing and making one imports its module, and that its SDK, only then.
PROVIDERS: Registry[type[Provider]] = Registry(
    "provider", error=ProviderUnavailable,
    hint="Name one of them (PEERLAKE_PROVIDER, --model PROVIDER/MODEL, a study's provider), or add one: a "
         "Provider subclass in llm_calls/providers/ named in PROVIDER_CLASSES in warehouse/settings.py.")
for _name, _target in PROVIDER_CLASSES.items():
    PROVIDERS.add_lazy(_name, _target)
PROVIDER_NAMES = PROVIDERS.names()


def make_provider(name: str) -> Provider:
    """The default provider for a name; imports its module and SDK only when first needed."""
    return PROVIDERS[name]()


def parse_recorded(provider: str, raw: dict) -> ProviderResponse:
    """Read a stored response body (an llm_call's response blob) as the provider that received it read it:
    Anthropic's Messages shape, Gemini's generateContent shape, or the chat-completions shape every other
    provider answers in (the local one included). BadResponse when the body is not of that shape."""
    if provider == "anthropic":
        from peerlake.llm_calls.providers.anthropic_messages import parse_message
        return parse_message(raw)
    if provider == "gemini":
        from peerlake.llm_calls.providers.gemini import parse_generate_content
        return parse_generate_content(raw)
    from peerlake.llm_calls.providers.openai_chat import parse_chat_completion
    return parse_chat_completion(raw)


__all__ = [
    "PROVIDERS",
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
