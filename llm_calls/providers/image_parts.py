"""Page images and figures (llm_calls/images.py has the message contract) as each API's content parts,
and the refusal of a request whose images its provider or model cannot take, or that is over the
provider's image limits (llm_calls/image_limits.py: count, bytes an image, bytes a request)."""

from typing import Any

from peerlake.llm_calls.image_limits import limits_for
from peerlake.llm_calls.images import IMAGES_KEY, MEDIA_TYPES, accepts_images, has_images, request_text_bytes
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
    _check_limits(provider, req)


def _check_limits(provider: str, req: LlmRequest) -> None:
    """Refuse, before sending, a request over the provider's documented image limits (the API would
    answer 400 or 413, and the same request fails again)."""
    limits = limits_for(provider)
    images = [img for m in req.messages for img in m.get(IMAGES_KEY) or ()]
    if limits is None:
        return
    if len(images) > limits.max_images:
        raise ImagesNotAccepted(f"{len(images)} images: over {provider}'s {limits.max_images} a request")
    sizes = [len(img.get("data") or "") for img in images]
    if big := [img["sha256"][:12] for img, n in zip(images, sizes, strict=True) if n > limits.max_image_bytes]:
        raise ImagesNotAccepted(f"image(s) {', '.join(big)} over {provider}'s {limits.max_image_bytes} bytes an image")
    total = sum(sizes) + request_text_bytes(req.messages, req.response_schema)
    if total > limits.max_request_bytes:
        raise ImagesNotAccepted(f"the request is ~{total} bytes with its images: over {provider}'s "
                                f"{limits.max_request_bytes} bytes a request")


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



def gemini_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A Gemini content's parts: the message's text, then each image as inline data."""
    text = message.get("content") or ""
    parts: list[dict[str, Any]] = [{"text": text}] if text or not message.get(IMAGES_KEY) else []
    return parts + [{"inline_data": {"mime_type": i["media_type"], "data": i["data"]}} for i in _images(message)]
