"""The package ingest writes for a PDF is pinned: the CC BY PDFs, the demo corpus and hidden-text variants
of both (white text on a coloured page reads the page's drawings; tiny, invisible and off-page text) give
exactly the packages recorded in fixtures/package_pins.json, made by the code before the layout pass was
made faster (#50). A speed change that moved one record, one section, one image or one hidden-text finding
fails here, naming the first record that differs.

Re-record only when a change of what ingest produces is meant (and PACKAGE_VERSION says so):
  .venv/bin/python -m tests.ingest.test_package_pins --record
"""

import hashlib
import json
import sys
from pathlib import Path

import pymupdf
import pytest

from peerlake.ingest import hidden_text
from peerlake.ingest.extraction import extract_package

ROOT = Path(__file__).resolve().parents[2]
PINS = Path(__file__).with_name("fixtures") / "package_pins.json"
DEMO = sorted((ROOT / "ingest" / "demo_corpus" / "papers").glob("*.pdf"))
CC_BY = ROOT.parent / "shared" / "data" / "cc_by_pdfs"
# Variants: (source, method). The demo paper covers each method; the PLOS paper has white text on
# coloured fills (visible) plus injected white text (hidden), the case that reads the page's drawings.
VARIANTS = [("demo-001.pdf", m) for m in hidden_text.METHODS] + [
    ("plosone2018_wheat_heat_stress_metabolomics.pdf", "white"),
    ("acl2020_main447_S2ORC.pdf", "tiny")]


def _source(name: str) -> Path:
    return (ROOT / "ingest" / "demo_corpus" / "papers" / name) if name.startswith("demo-") else CC_BY / name


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _pin(pdf: bytes) -> dict:
    """What the package and its image blobs are, with one digest per record so a failure names where.
    A variant's PDF bytes carry MuPDF's save, so its pdf_sha256 is left out of the package's digest."""
    package, images = extract_package(pdf)
    doc = json.loads(package.to_json())
    doc["pdf_sha256"] = None
    for img in doc["images"]:
        img["pdf_sha256"] = None
    return {"package": _digest(json.dumps(doc, sort_keys=True, ensure_ascii=False)),
            "records": [_digest(json.dumps(r, sort_keys=True, ensure_ascii=False)) for r in doc["records"]],
            "sections": package.sections, "hidden": package.hidden,
            "images": sorted(images), "n_furniture": package.n_furniture}


def _variant(name: str, method: str) -> bytes:
    data = _source(name).read_bytes()
    pdf, _ = hidden_text.inject(data, extract_package(data)[0], method, hidden_text.DEFAULT_TEXT)
    return pdf


def _cases() -> list[tuple[str, object]]:
    cases = [(p.name, p.read_bytes) for p in DEMO]
    cases += [(p.name, p.read_bytes) for p in sorted(CC_BY.glob("*.pdf"))] if CC_BY.is_dir() else []
    cases += [(f"{n}~{m}", lambda n=n, m=m: _variant(n, m)) for n, m in VARIANTS if _source(n).is_file()]
    return cases


def record() -> None:
    pins = {"pymupdf": pymupdf.VersionBind, "packages": {key: _pin(read()) for key, read in _cases()}}
    PINS.parent.mkdir(exist_ok=True)
    PINS.write_text(json.dumps(pins, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(pins['packages'])} pins to {PINS}")


PINNED = json.loads(PINS.read_text()) if PINS.is_file() else {"pymupdf": None, "packages": {}}


@pytest.mark.parametrize("key", sorted(PINNED["packages"]))
def test_the_package_is_the_one_pinned(key):
    if PINNED["pymupdf"] != pymupdf.VersionBind:
        pytest.skip(f"pinned with pymupdf {PINNED['pymupdf']}; MuPDF's text extraction may differ")
    name = key.split("~")[0]
    if not _source(name).is_file():
        pytest.skip(f"{_source(name)} absent (../shared/data is only present beside the project checkout)")
    read = dict(_cases())[key]
    want, got = PINNED["packages"][key], _pin(read())
    for i, (w, g) in enumerate(zip(want["records"], got["records"], strict=False)):
        assert g == w, f"record {i} of {len(want['records'])} differs"
    assert len(got["records"]) == len(want["records"])
    assert {k: v for k, v in got.items() if k != "records"} == {k: v for k, v in want.items() if k != "records"}


def test_every_source_is_pinned():
    """A PDF added to the corpus is pinned too (re-record), so the pin never silently covers less."""
    missing = {key for key, _ in _cases()} - set(PINNED["packages"])
    assert not missing, f"not pinned: {sorted(missing)}"


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    record()
