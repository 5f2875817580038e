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
- Gemini gets its text part, then `{"inline_data": {"mime_type": ..., "data": ...}}` per image.
- The local model and any model `accepts_images` says no to refuse the request with
  ImagesNotAccepted (fatal: the same request fails again), before anything is sent. Provider batch
  lines carry no images (the batch input file would hold the bytes): they are refused too.

Which models take images (`accepts_images`), by provider:
- local: never (the embedded model is text-only);
- openai: the vision families by name prefix (VISION_PREFIXES), not their mini reasoning models;
- anthropic: every Claude 3 or later model (not claude-2 / claude-instant);
- gemini: every Gemini model but the embedding and speech (TTS) ones;
- openai_compatible: $PEERLAKE_COMPATIBLE_IMAGES forces yes or no for the server's models; unset,
  a model whose name has a vision marker (COMPATIBLE_MARKERS: "-vl", "vision", "llava", ...).

A figure (a manuscript's own image, as ingest stored it) is an entry with its target size too:

    {"sha256": <the stored image>, "media_type": "image/png", "width": W, "height": H, "max_bytes": B}

It is sent drawn at W x H px on white as a PNG (MuPDF, `render_figure`); when that PNG's base64 is over
B characters, drawn again at half the size until it fits. So the recorded request names which image
went, at what size and within what share of the request: the bytes sent are a pure function of the
stored image and the entry, made again at each call, never stored. `fit_figures` chooses the entries
within a provider's limits (llm_calls/image_limits.py).

A figure of a version-3 manuscript package is stored as the PDF holds it (ingest/images.py), so its entry
also names where to decode it: `"pdf_sha256"`, `"xref"` (the image object) and `"page"` (for errors).
`figure_source` decodes it when a request carrying it is first sent — never at ingest, never for a call
answered from the log — with MuPDF's `extract_image`, the bytes a version-2 package stored, after checking
the object's raw stream still hashes to `sha256`. An image that cannot be decoded (a damaged stream, which
version 2 stored as MuPDF's black-padded PNG; one over MAX_FIGURE_PIXELS, which version 2 left out) fails
that call with FigureUnreadable naming the paper, page and image; not retried.
"""

import base64
import dataclasses
import hashlib
import json
import math
import threading
from typing import Any

from peerlake.llm_calls.image_limits import limits_for
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
GEMINI_TEXT_ONLY = ("embedding", "-tts")  # gemini-embedding-001, gemini-2.5-flash-preview-tts
COMPATIBLE_MARKERS = ("-vl", "_vl", "vl-", "vision", "llava", "pixtral", "moondream", "minicpm-v", "gemma-3",
                      "gpt-4o", "internvl")


def accepts_images(provider: str, model: str) -> bool:
    """Whether `provider`/`model` takes page images (the rule is in the module docstring)."""
    name = (model or "").lower()
    if provider == "openai":
        return not name.startswith(NO_VISION) and name.startswith(VISION_PREFIXES)
    if provider == "anthropic":
        return name.startswith("claude") and not name.startswith(("claude-2", "claude-instant", "claude-1"))
    if provider == "gemini":
        name = name.removeprefix("models/")
        return name.startswith("gemini") and not any(m in name for m in GEMINI_TEXT_ONLY)
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
            images = [{**img, "data": _wire_data(img, blobs, req.subject_id)} for img in m[IMAGES_KEY]]
            m = {**m, IMAGES_KEY: images}
        messages.append(m)
    return dataclasses.replace(req, messages=tuple(messages))


def _wire_data(img: dict, blobs: Any, paper: str | None = None) -> str:
    if "width" not in img:  # a page render or any image sent as stored
        return base64.b64encode(blobs.get(img["sha256"])).decode("ascii")
    key = (img["sha256"], img["width"], img["height"], img["max_bytes"])
    with _RENDER_LOCK:  # MuPDF is not thread-safe; the gateway calls from many threads
        if key not in _RENDERED:
            if len(_RENDERED) >= 256:  # a few requests' figures: the k samples of one paper reuse them
                _RENDERED.pop(next(iter(_RENDERED)))
            source = figure_source(blobs, img, paper)
            try:
                png = render_figure(source, *key[1:])
            except Exception as exc:
                if "xref" not in img:
                    raise
                # A JPEG's bytes pass extract_image untouched: a corrupt one first fails here.
                raise FigureUnreadable(f"{_where(img, paper)} cannot be drawn ({_cause(exc)})") from None
            _RENDERED[key] = base64.b64encode(png).decode("ascii")
        return _RENDERED[key]


class FigureUnreadable(ValueError):
    """A figure stored as its PDF stream cannot be decoded (the message names paper, page and image)."""


# A 600-dpi A4 scan is 35 M px; 50 M px of RGB is 150 MB decoded. Above it an image's declared size is
# taken for a hostile file (a 100,000 x 100,000 px Flate stream of a few KB), refused before decoding.
MAX_FIGURE_PIXELS = 50_000_000


def figure_source(blobs: Any, img: dict, paper: str | None = None) -> bytes:
    """The image an entry names, as MuPDF's `extract_image` gives it: the stored blob, or (an entry with
    `xref`: a version-3 package) that object of the stored PDF decoded now (see the module docstring)."""
    if "xref" not in img:
        return blobs.get(img["sha256"])
    import pymupdf  # 0.75 s to import: only when a request carries figures

    where = _where(img, paper)
    pdf = blobs.get(img["pdf_sha256"])  # hash re-checked: the PDF ingest read
    try:
        with pymupdf.open(stream=pdf, filetype="pdf") as doc:
            xref = int(img["xref"])
            if hashlib.sha256(doc.xref_stream_raw(xref) or b"").hexdigest() != img["sha256"]:
                raise FigureUnreadable(f"{where}: the object's stream does not hash to the image's sha256")
            width, height = (_declared(doc, xref, k) for k in ("Width", "Height"))
            if width * height > MAX_FIGURE_PIXELS:
                raise FigureUnreadable(f"{where} declares {width:,} x {height:,} px, over the "
                                       f"{MAX_FIGURE_PIXELS:,}-pixel limit (MAX_FIGURE_PIXELS); not decoded")
            pymupdf.TOOLS.mupdf_warnings(reset=True)
            image = doc.extract_image(xref)
            # A damaged Flate stream is not an exception: MuPDF warns, pads the image with black, goes on.
            damage = [w for w in pymupdf.TOOLS.mupdf_warnings(reset=True).splitlines()
                      if "error" in w or "truncated" in w]
            if damage:
                raise FigureUnreadable(f"{where}: its stream is damaged ({'; '.join(damage[:3])})")
    except FigureUnreadable:
        raise
    except Exception as exc:  # MuPDF raises several types for a broken stream
        raise FigureUnreadable(f"{where} cannot be decoded ({_cause(exc)})") from None
    if not image or not image.get("image"):
        raise FigureUnreadable(f"{where}: MuPDF decoded no bytes")
    return image["image"]


def _declared(doc, xref: int, key: str) -> int:
    kind, value = doc.xref_get_key(xref, key)
    if kind == "xref":
        value = doc.xref_object(int(value.split()[0]))
    return int(float(value))


def _where(img: dict, paper: str | None) -> str:
    """Which image: a request's entry names its page, a package's entry its pages."""
    page = img.get("page") or (img.get("pages") or ["?"])[0]
    return (f"paper {paper or '(unknown)'}, page {page}: image {str(img['sha256'])[:12]} "
            f"(object {img.get('xref')} of PDF {str(img.get('pdf_sha256'))[:12]})")


def _cause(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text if len(text) <= 200 else text[:200] + '…'}"


_RENDER_LOCK = threading.Lock()
_RENDERED: dict[tuple, str] = {}

# Formats MuPDF draws (what ingest's extract_image keeps a figure as); JBIG2 and the rest are left out.
DRAWABLE_EXTS = ("png", "jpeg", "jpg", "jpx", "jp2", "bmp", "gif", "tif", "tiff", "pnm", "pbm", "pgm", "ppm",
                 "pam", "psd", "jxr")
FIGURE_MEDIA_TYPE = "image/png"
# The Scorer's own cap (seed 001, appendix B.2: Haiku read images with a long side of at most 1,568 px,
# at most 100 a call), under every provider's limits.
SCORER_MAX_IMAGES = 100
SCORER_MAX_LONG_EDGE_PX = 1568
REQUEST_MARGIN_BYTES = 64 * 1024  # JSON framing, headers and parameters beside the text and the images
MIN_SHARE_BYTES = 16 * 1024  # below it a figure is unreadable: drop figures rather than shrink all of them


def render_figure(data: bytes, width: int, height: int, max_bytes: int) -> bytes:
    """The image drawn at width x height px on white, as an RGB PNG whose base64 fits `max_bytes`
    (drawn again at half the size until it does)."""
    import pymupdf  # 0.75 s to import: only when a request carries figures

    while True:
        with pymupdf.open() as doc:
            page = doc.new_page(width=width, height=height)  # 72 dpi: one point, one pixel
            page.insert_image(page.rect, stream=data, keep_proportion=False)
            png = page.get_pixmap(alpha=False).tobytes("png")
        if math.ceil(len(png) / 3) * 4 <= max_bytes:
            return png
        if width == 1 and height == 1:
            raise ValueError(f"a 1x1 PNG is over the {max_bytes}-byte share")
        width, height = max(1, width // 2), max(1, height // 2)


@dataclasses.dataclass(frozen=True)
class FigureFit:
    images: list[dict]  # the message's `images` entries, in the figures' order
    dropped: list[str]  # "<sha256[:12]>: why", in order
    limits: str  # the provider's limits as documented, or why none apply


def request_text_bytes(messages: Any, response_schema: dict | None) -> int:
    """An upper bound on the request's bytes besides its images (JSON with every non-ASCII character
    escaped, as the SDKs send it)."""
    text = [{k: v for k, v in m.items() if k != IMAGES_KEY} for m in messages]
    return len(json.dumps(text)) + len(json.dumps(response_schema))


def fit_figures(provider: str, model: str, figures: list[dict], text_bytes: int, *,
                max_images: int = SCORER_MAX_IMAGES, max_long_edge_px: int = SCORER_MAX_LONG_EDGE_PX) -> FigureFit:
    """The figures ({sha256, ext, width, height}, in reading order) a request to `provider`/`model` carries.

    The rule, in order: none when the model takes no images. A figure MuPDF cannot draw or without a
    size is left out. The first `max_images` (and the provider's count) are kept, the rest left out.
    Each kept one is scaled down (never up) to a long edge of at most `max_long_edge_px` and to the
    provider's pixel limits. The bytes the request has left beside its text are shared equally: each
    figure's `max_bytes` is that share (at most the provider's per-image limit), and when a share would
    fall under 16 KB the last figures are left out until it does not."""
    limits = limits_for(provider)
    if limits is None or not accepts_images(provider, model):
        return FigureFit([], [f"{f['sha256'][:12]}: {model} reads no images" for f in figures],
                         f"{provider}/{model}: text only")
    dropped, usable = [], []
    for f in figures:
        if str(f.get("ext") or "").lower() not in DRAWABLE_EXTS or not f.get("width") or not f.get("height"):
            dropped.append(f"{f['sha256'][:12]}: format {f.get('ext')!r} or size unknown")
        else:
            usable.append(f)
    budget = limits.max_request_bytes - text_bytes - REQUEST_MARGIN_BYTES
    count = max(0, min(len(usable), max_images, limits.max_images, budget // MIN_SHARE_BYTES))
    cap = min(max_images, limits.max_images)
    dropped += [f"{f['sha256'][:12]}: beyond the {cap}-image limit" if i >= cap else
                f"{f['sha256'][:12]}: no room in the {limits.max_request_bytes // (1024 * 1024)} MB request"
                for i, f in enumerate(usable) if i >= count]
    share = min(limits.max_image_bytes, budget // count) if count else 0
    images = []
    for f in usable[:count]:
        width, height = _fitted(int(f["width"]), int(f["height"]), limits, max_long_edge_px)
        entry = {"sha256": f["sha256"], "media_type": FIGURE_MEDIA_TYPE, "width": width, "height": height,
                 "max_bytes": share}
        if "xref" in f:  # stored as its PDF stream: where figure_source decodes it
            entry.update(pdf_sha256=f["pdf_sha256"], xref=f["xref"], page=(f.get("pages") or [None])[0])
        images.append(entry)
    return FigureFit(images, dropped, limits.source)


def _fitted(width: int, height: int, limits, max_long_edge_px: int) -> tuple[int, int]:
    long_edge, short_edge = max(width, height), min(width, height)
    scale = min(1.0, min(max_long_edge_px, limits.max_long_edge_px) / long_edge)
    if limits.max_short_edge_px:
        scale = min(scale, limits.max_short_edge_px / short_edge)
    if limits.max_megapixels:
        scale = min(scale, math.sqrt(limits.max_megapixels * 1e6 / (width * height)))
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))
