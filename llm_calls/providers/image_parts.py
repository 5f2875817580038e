"""Page images (llm_calls/images.py has the message contract) as each API's content parts, and
the refusal of a request whose images its provider or model cannot take."""

from typing import Any

from peerlake.llm_calls.images import IMAGES_KEY, MEDIA_TYPES, accepts_images, has_images
from peerlake.llm_calls.providers.base import FatalProviderError
from peerlake.llm_calls.types import LlmRequest


class ImagesNotAccepted(FatalProviderError):
    """The request carries images the provider or model cannot take; retrying cannot help."""

    def __init__(self, message: str):
        super().__init__(message, error_type="ImagesNotAccepted")


def check_accepted(provider: str, req: LlmRequest) -> None:
    """Raise ImagesNotAccepted when the request carries images this provider/model cannot take."""
    if not has_images(req.messages):
        return
    if any(m.get(IMAGES_KEY) for m in req.messages if m.get("role") == "system"):
        raise ImagesNotAccepted("images go in a user message; a system message cannot carry them")
    if provider == "local":
        raise ImagesNotAccepted("the local provider (the embedded text-only model) does not accept images: "
                                "send page images only where llm_calls.images.accepts_images(provider, model)")
    if not accepts_images(provider, req.model):
        hint = " (set PEERLAKE_COMPATIBLE_IMAGES=1 if this server's model reads images)" \
            if provider == "openai_compatible" else ""
        raise ImagesNotAccepted(f"model {req.model!r} of provider {provider!r} is not known to accept images{hint}")


def _images(message: dict[str, Any]) -> list[dict[str, str]]:
    """The message's images, each checked: a known media type and bytes resolved by the gateway."""
    out = []
    for img in message.get(IMAGES_KEY) or ():
        media_type = img.get("media_type")
        if media_type not in MEDIA_TYPES:
            raise ImagesNotAccepted(f"image {str(img.get('sha256'))[:12]}: media_type {media_type!r} is not one of "
                                    f"{', '.join(MEDIA_TYPES)}")
        if not img.get("data"):
            raise ImagesNotAccepted(f"image {str(img.get('sha256'))[:12]} has no bytes: images are read from the "
                                    "blob store by the gateway's direct calls (provider batches do not carry them)")
        out.append({"media_type": media_type, "data": img["data"]})
    return out


def openai_message(message: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions message: content parts (text, then image_url data URLs) when it has images."""
    images = _images(message)
    if IMAGES_KEY not in message:
        return message
    out = {k: v for k, v in message.items() if k != IMAGES_KEY}
    if images:
        text = message.get("content") or ""
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []  # empty text: a 400
        parts += [{"type": "image_url", "image_url": {"url": f"data:{i['media_type']};base64,{i['data']}"}}
                  for i in images]
        out["content"] = parts
    return out


def anthropic_with_images(message: dict[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    """`converted` (the message as Anthropic takes it, text possibly split into cache blocks) with
    the original message's images appended as base64 image blocks."""
    images = _images(message)
    out = {k: v for k, v in converted.items() if k != IMAGES_KEY}
    if images:
        content = out.get("content")
        # An empty text block is an error at Anthropic: an image-only message has none.
        blocks = list(content) if isinstance(content, list) else [{"type": "text", "text": content}] if content else []
        blocks += [{"type": "image", "source": {"type": "base64", "media_type": i["media_type"], "data": i["data"]}}
                   for i in images]
        out["content"] = blocks
    return out

