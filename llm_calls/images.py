"""Page images in requests: the message contract, which models take images, and the bytes' lookup.

A message may carry, beside `role` and `content`:

    "images": [{"sha256": <blob hash>, "media_type": "image/png"}, ...]

The hashes are part of `messages`, hence of the request_key (a different render is a different
request) and of the request blob; the bytes never are. Right before a provider call the gateway
hands the provider a copy whose entries also carry `"data"` (base64, read from the lake's blob store
by `with_image_data`), so image bytes reach the wire and nothing else: no event, no request blob.

Each provider turns such a message into its own parts (llm_calls/providers/image_parts.py):
- OpenAI and OpenAI-compatible servers get the message's content as parts: its text first, then
  `{"type": "image_url", "image_url": {"url": "data:<media_type>;base64,<data>"}}` per image.
- Anthropic gets its text block(s) (split at a cache breakpoint as usual), then
  `{"type": "image", "source": {"type": "base64", "media_type": ..., "data": ...}}` per image.
- The local model and any model `accepts_images` says no to refuse the request with
  ImagesNotAccepted (fatal: the same request fails again), before anything is sent. Provider batch
  lines carry no images (the batch input file would hold the bytes): they are refused too.

Which models take images (`accepts_images`), by provider:
- local: never (the embedded model is text-only);
- openai: the vision families by name prefix (VISION_PREFIXES), not their mini reasoning models;
- anthropic: every Claude 3 or later model (not claude-2 / claude-instant);
- openai_compatible: $PEERLAKE_COMPATIBLE_IMAGES forces yes or no for the server's models; unset,
  a model whose name has a vision marker (COMPATIBLE_MARKERS: "-vl", "vision", "llava", ...).
"""

import base64
import dataclasses
from typing import Any

from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import settings

IMAGES_KEY = "images"
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")  # what both APIs take
# OpenAI models that read images, by name prefix (checked after NO_VISION); a dated snapshot
# (gpt-4o-2024-08-06) shares its family's prefix.
VISION_PREFIXES = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "o1", "o3",
                   "o4")
NO_VISION = ("o1-mini", "o1-preview", "o3-mini", "gpt-4o-audio", "gpt-4o-realtime", "gpt-4o-search",
             "gpt-4o-mini-audio", "gpt-4o-mini-realtime", "gpt-4o-mini-search")
# Self-hosted vision models usually say so in their name (Qwen2.5-VL, llava, pixtral, Llama-3.2-Vision).
COMPATIBLE_MARKERS = ("-vl", "_vl", "vl-", "vision", "llava", "pixtral", "moondream", "minicpm-v", "gemma-3",
                      "gpt-4o", "internvl")


def accepts_images(provider: str, model: str) -> bool:
    """Whether `provider`/`model` takes page images (the rule is in the module docstring)."""
    name = (model or "").lower()
    if provider == "openai":
        return not name.startswith(NO_VISION) and name.startswith(VISION_PREFIXES)
    if provider == "anthropic":
        return name.startswith("claude") and not name.startswith(("claude-2", "claude-instant", "claude-1"))
    if provider == "openai_compatible":
        forced = settings.compatible_images()
        return forced if forced is not None else any(m in name for m in COMPATIBLE_MARKERS)
    return False  # "local" and anything unknown


def has_images(messages: Any) -> bool:
    return any(m.get(IMAGES_KEY) for m in messages or ())


def with_image_data(req: LlmRequest, blobs: Any) -> LlmRequest:
    """The request as handed to the provider: every image entry with its bytes as base64 `data`,
    read from the blob store (hash re-checked on read). Unchanged when no message has images."""
    if not has_images(req.messages):
        return req
    messages = []
    for m in req.messages:
        if m.get(IMAGES_KEY):
            images = [{**img, "data": base64.b64encode(blobs.get(img["sha256"])).decode("ascii")}
                      for img in m[IMAGES_KEY]]
            m = {**m, IMAGES_KEY: images}
        messages.append(m)
    return dataclasses.replace(req, messages=tuple(messages))
