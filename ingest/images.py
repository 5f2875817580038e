"""A PDF's images as ingest keeps them (package version 3): each image object's raw stream, the bytes the
PDF holds, stored as a blob under their SHA-256 — nothing decoded, nothing re-encoded at ingest.

Why: up to version 2 every image was decoded and re-encoded as PNG by MuPDF at ingest (`extract_image`),
half of ingest's time on the CC BY PDFs (a 1718x1692 figure alone 0.36 s), for figures most readers never
look at; and the image's identity was the hash of that PNG, so it moved with MuPDF's and zlib's encoder.
Now an image is named by the SHA-256 of its raw stream (reading it and hashing costs ~0.3 ms an image):
the same bytes in two PDFs are the same image, whatever library reads them later. The entry also names
where a reader decodes it: object `xref` of the PDF `pdf_sha256` (kept as a blob at ingest anyway), since
a raw Flate stream is no image file without its dictionary (size, colour space, predictor).

Two image objects with the same raw stream are one image, as two equal PNGs were in version 2 (a stream
whose dictionaries differ, say in palette, would be drawn as the first; none of the 7 CC BY PDFs has one).

A reader that needs pixels decodes them when it first asks (llm_calls.images.figure_source: the gateway,
right before a request carrying the figure is sent), with MuPDF's `extract_image` as version 2 did at
ingest, so it gets the very bytes version 2 stored. An image that cannot be decoded (a corrupt stream,
absurd dimensions) is still listed here and fails there, naming the paper, page and image; the rest of
the paper ingests and reads as before.
"""

import re

import pymupdf

from peerlake.warehouse.blobs import sha256_hex

# What `extract_image` hands a reader: a lone DCT or JPX filter keeps the compressed bytes (a JPEG or
# JPEG 2000 file); everything else (Flate, CCITT, JBIG2, LZW, chains) is decoded and written as PNG.
_KEPT_AS = {"/DCTDecode": "jpeg", "/JPXDecode": "jpx"}


def stored_images(doc: pymupdf.Document, xrefs: set[int],
                  pdf_sha256: str) -> tuple[dict[str, bytes], dict[int, dict]]:
    """Each image object once: its raw stream by SHA-256, and the package entry of each xref
    ({sha256, ext, width, height, pages, filter, pdf_sha256, xref}; `pages` is filled by the caller).
    An object whose stream cannot even be read raw (or is no image) is left out, not fatal to the paper."""
    by_sha: dict[str, bytes] = {}
    meta: dict[int, dict] = {}
    for xref in sorted(x for x in xrefs if x > 0):  # 0: an inline image, no object of its own
        try:
            if doc.xref_get_key(xref, "Subtype") != ("name", "/Image"):
                continue
            raw = doc.xref_stream_raw(xref)
            width, height = _int_key(doc, xref, "Width"), _int_key(doc, xref, "Height")
            filters = _filters(doc.xref_get_key(xref, "Filter"))
        except Exception:  # a broken object: MuPDF raises several types
            continue
        if not raw:
            continue
        sha = sha256_hex(raw)
        by_sha[sha] = raw
        meta[xref] = {"sha256": sha, "ext": _KEPT_AS.get(filters[0], "png") if len(filters) == 1 else "png",
                      "width": width, "height": height, "pages": [], "filter": " ".join(filters),
                      "pdf_sha256": pdf_sha256, "xref": xref}
    return by_sha, meta


def _int_key(doc: pymupdf.Document, xref: int, key: str) -> int:
    kind, value = doc.xref_get_key(xref, key)
    if kind == "xref":  # `/Width 12 0 R`: legal, rare
        value = doc.xref_object(int(value.split()[0]))
    try:
        return max(0, int(float(value)))
    except ValueError:
        return 0  # unknown size: llm_calls.images.fit_figures leaves such a figure out


def _filters(entry: tuple[str, str]) -> list[str]:
    """["/FlateDecode"] of `/Filter /FlateDecode`, both names of `[/FlateDecode /DCTDecode]`, [] of none."""
    kind, value = entry
    return re.findall(r"/[^\s/\[\]<>()]+", value) if kind in ("name", "array") else []
