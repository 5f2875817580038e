"""What each provider's API takes in images, per request: how many, how large in pixels, how many bytes.

Sizes in bytes are of the base64 text on the wire (what the APIs measure; 4/3 of the file), and every
limit is the smallest one a provider documents for its direct API, so a request within them is
accepted wherever it goes. Sources, as read on 2026-12-06:

- Anthropic, "Vision" (docs.claude.com / platform.claude.com, build-with-claude/vision, General limits):
  at most 8000x8000 px an image, 2000x2000 px when a request has more than 20 images; 5 MB an image
  (the base64 string, the API's error says so); 32 MB a request on the standard endpoints; up to 100
  images a request (the page read in 2025; its 2026 version says 600 — we keep 100, also seed 001's
  B.2). An image whose long edge is over 1,568 px or over ~1.15 megapixels is scaled down by the API
  before the model sees it (only latency is gained by sending more).
- OpenAI, "Images and vision" (platform.openai.com/docs/guides/images-vision, Image input requirements):
  PNG, JPEG, WEBP, non-animated GIF; up to 20 MB an image, 500 images and 50 MB of image bytes a request;
  high detail reads an image scaled to fit 2048x2048 and then to a 768-px short side (768 x 2000 px).
  OpenAI-compatible servers are held to OpenAI's numbers (they copy its API, not always its limits).
- Google, "Image understanding" (ai.google.dev/gemini-api/docs/image-understanding): inline image data
  while the whole request (text, instructions, images) stays under 20 MB, else the File API; up to
  3,600 image files a request (Gemini 2.x); larger images are scaled down to fit 3072x3072. (Google's
  January 2026 update raised inline data to 100 MB; we keep 20 MB, which every Gemini endpoint takes.)

The rule that fits a reviewer's figures into these is `fit_figures` in llm_calls/images.py.
"""

from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class ImageLimits:
    max_images: int  # images in one request
    max_long_edge_px: int  # beyond it the API refuses the image or scales it down anyway
    max_short_edge_px: int | None  # OpenAI high detail: a 768-px short side
    max_megapixels: float | None  # Anthropic: ~1.15 MP before its own downscale
    max_image_bytes: int  # base64 characters of one image
    max_request_bytes: int  # the whole request body: text, instructions and every image
    source: str


LIMITS = {
    "anthropic": ImageLimits(max_images=100, max_long_edge_px=1568, max_short_edge_px=None, max_megapixels=1.15,
                             max_image_bytes=5 * MB, max_request_bytes=32 * MB,
                             source="Anthropic vision docs: 100 images, 8000 px (2000 px over 20 images; 1,568 px "
                                    "/ 1.15 MP read), 5 MB an image, 32 MB a request"),
    "openai": ImageLimits(max_images=500, max_long_edge_px=2048, max_short_edge_px=768, max_megapixels=None,
                          max_image_bytes=20 * MB, max_request_bytes=50 * MB,
                          source="OpenAI images-vision guide: 500 images, 50 MB a request, 20 MB an image, "
                                 "high detail 2048 px fit then 768-px short side"),
    "gemini": ImageLimits(max_images=3600, max_long_edge_px=3072, max_short_edge_px=None, max_megapixels=None,
                          max_image_bytes=20 * MB, max_request_bytes=20 * MB,
                          source="Gemini image-understanding docs: 3,600 images, inline data within a 20 MB "
                                 "request, scaled to fit 3072x3072"),
}
LIMITS["openai_compatible"] = LIMITS["openai"]


def limits_for(provider: str) -> ImageLimits | None:
    """The provider's image limits; None for a provider that takes no images (local, unknown)."""
    return LIMITS.get(provider)
