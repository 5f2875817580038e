"""Ingest throughput: PDF ingest pages/s vs raw pymupdf text extraction of the same files, and the
cost of ingesting all 487 ASAP ICLR 2017 papers.

(a) The 7 CC BY PDFs in ../shared/data/cc_by_pdfs: raw = `page.get_text()` over every page (what a
naive pipeline would feed a model); ingest = `ingest_pdf` into a fresh lake (layout dict pass,
column detection, records, sections, images stored by hash, package blob, event). Since package
version 3 (#50) an image is stored as the raw stream the PDF holds and decoded only when a reader asks
(ingest/images.py), so `images` below is reading and hashing those streams; it was ~45 % of ingest.
The two sides run INTERLEAVED, one of each per round (raw, then ingest), because the load of a
shared machine changes between rounds; the result is the median of the rounds' ratios (goal >= 0.8).
Where ingest's time goes is clocked in every round (images, MuPDF text pages and span dicts, the
rest of the layout pass, reading order, records, anonymization, fsyncs, the package JSON), and the text
pages built are counted: raw builds one per page, ingest one more on each page with images.
(b) The ASAP tarball is extracted to a temporary folder (never into the repo) and `import_asap`
ingests every paper, review and decision into a fresh lake, then seals it.
Run: .venv/bin/python benchmarks/ingest_throughput.py [--repeat 7] [--no-asap] [--layout-floor]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pymupdf  # noqa: E402

from peerlake.ingest.asap import import_asap  # noqa: E402
from peerlake.ingest.batch import counts  # noqa: E402
from peerlake.ingest.manuscripts import ingest_pdf  # noqa: E402
from peerlake.warehouse.lake import Lake  # noqa: E402
from peerlake.warehouse.log import EventLog  # noqa: E402

DATA = REPO.parent / "shared" / "data"
RESULT_PATH = REPO / "benchmarks" / "results" / "ingest_throughput.json"


def raw_text(paths: list[Path]) -> tuple[float, int]:
    t0 = time.perf_counter()
    pages = 0
    for p in paths:
        with pymupdf.open(p) as doc:
            for page in doc:
                page.get_text()
                pages += 1
    return time.perf_counter() - t0, pages


def layout_only(paths: list[Path]) -> float:
    """The layout pass alone (every page's text and image blocks, as extract_package reads them): its ratio
    to raw is the most ingest can reach without changing that pass, whatever else gets cheaper."""
    # unwrapped: the clocks patch extraction's
    from peerlake.ingest.pdf_layout import image_blocks, image_info_once, text_blocks

    t0 = time.perf_counter()
    for p in paths:
        with pymupdf.open(p) as doc:
            for page in doc:
                images = image_info_once(page)
                text_blocks(page, images) + image_blocks(page, image_info=images)
    return time.perf_counter() - t0


GOAL = 0.8  # ingest pages/s over raw pymupdf pages/s, median round
GOAL_50 = 0.5  # #50's goal for the same ratio once images are decoded lazily (0.16 before it)


class _Clocks:
    """Seconds spent in the named parts of ingest, by wrapping the functions that do them (this process only)."""

    PARTS: ClassVar[dict[str, tuple[str, str]]] = {  # part -> (module, attribute)
        "images": ("peerlake.ingest.extraction", "stored_images"),  # each image's raw stream, read and hashed
        "mupdf_text_pages": ("pymupdf", "Page.get_textpage"),  # MuPDF's text page (raw pays one per page too)
        "mupdf_dict": ("pymupdf", "TextPage.extractDICT"),  # the text page as span dicts (pymupdf's C)
        "layout_text": ("peerlake.ingest.extraction", "text_blocks"),  # includes its text pages
        "layout_images": ("peerlake.ingest.extraction", "image_blocks"),  # includes get_image_info's text pages
        "reading_order": ("peerlake.ingest.extraction", "reading_order"),  # columns and bands, per page
        "records": ("peerlake.ingest.extraction", "sectioned_records"),  # parts, sections, references
        "anonymize": ("peerlake.ingest.extraction", "anonymize"),
        "package_json": ("peerlake.ingest.package", "ManuscriptPackage.to_json"),
        "fsync": ("os", "fsync"),
    }

    def __init__(self):
        import importlib

        self.seconds = dict.fromkeys(self.PARTS, 0.0)
        self.calls = dict.fromkeys(self.PARTS, 0)
        self.on = False
        for part, (module, attr) in self.PARTS.items():
            owner = importlib.import_module(module)
            *path, name = attr.split(".")
            for p in path:
                owner = getattr(owner, p)
            setattr(owner, name, self._timed(part, getattr(owner, name)))

    def _timed(self, part, fn):
        def timed(*a, **kw):
            if not self.on:
                return fn(*a, **kw)
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                self.seconds[part] += time.perf_counter() - t0
                self.calls[part] += 1

        return timed


def ingest_all(paths: list[Path], clocks: "_Clocks") -> float:
    with tempfile.TemporaryDirectory() as tmp:
        log = EventLog(Lake(Path(tmp) / "lake"))
        clocks.on = True
        t0 = time.perf_counter()
        outcomes = [ingest_pdf(log, p) for p in paths]
        elapsed = time.perf_counter() - t0
        clocks.on = False
        log.close()
    bad = [o.reason for o in outcomes if o.status != "ingested"]
    if bad:
        raise SystemExit(f"ingest failed: {bad}")
    return elapsed


def asap_cost() -> dict:
    tarball = DATA / "asap_review_iclr2017" / "ICLR_2017_full_487_papers.tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        extract_s = time.perf_counter() - t0
        log = EventLog(Lake(Path(tmp) / "lake"))
        t0 = time.perf_counter()
        outcomes = import_asap(log, Path(tmp) / "dataset")
        result = counts(outcomes)
        import_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        log.seal()
        seal_s = time.perf_counter() - t0
        log.close()
    return {"papers": result["ingested"], "reviews": result["imported"], "statuses": result["status_recorded"],
            "rejected": result["rejected"],
            "rejected_reasons": [o.reason for o in outcomes if o.status == "rejected"][:5],
            "extract_seconds": round(extract_s, 2), "import_seconds": round(import_s, 2),
            "seal_seconds": round(seal_s, 2),
            "ms_per_paper": round(1000 * (import_s + seal_s) / max(result["ingested"], 1), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="rounds of (raw pymupdf, ingest), alternating")
    ap.add_argument("--no-asap", action="store_true", help="skip (b), the 487 ASAP papers")
    ap.add_argument("--layout-floor", action="store_true",
                    help="also time the layout pass alone in every round (after ingest), as a ratio to raw")
    args = ap.parse_args()
    pdfs = sorted((DATA / "cc_by_pdfs").glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {DATA / 'cc_by_pdfs'}; nothing to measure")
        return 1
    load_before = os.getloadavg()[0]
    clocks = _Clocks()
    raw_text(pdfs)  # warm-up, both sides alike: imports, the OS's file cache
    ingest_all(pdfs, clocks)
    clocks.seconds = dict.fromkeys(clocks.PARTS, 0.0)
    clocks.calls = dict.fromkeys(clocks.PARTS, 0)
    rounds, floors = [], []
    for _ in range(args.repeat):
        raw_s, pages = raw_text(pdfs)
        rounds.append((raw_s, ingest_all(pdfs, clocks)))
        if args.layout_floor:
            floors.append(raw_s / layout_only(pdfs))
    ratios = [r / i for r, i in rounds]
    median = statistics.median(ratios)
    raw_med = statistics.median(r for r, _ in rounds)
    ingest_total = sum(i for _, i in rounds)
    ingest_med = statistics.median(i for _, i in rounds)
    s = clocks.seconds
    # Shares of ingest time summed over the rounds. Every MuPDF text page and span dict is built inside the
    # layout pass (text_blocks, image_blocks), so the layout's own share is what remains of it without them
    # (the Python pass, get_images, get_image_info's image list, the white-text check's drawings).
    shares = {
        "images": s["images"],
        "mupdf_text_pages": s["mupdf_text_pages"],
        "mupdf_dict": s["mupdf_dict"],
        "layout_rest": s["layout_text"] + s["layout_images"] - s["mupdf_text_pages"] - s["mupdf_dict"],
        "reading_order": s["reading_order"],
        "records": s["records"],
        "anonymize": s["anonymize"],
        "package_json": s["package_json"],
        "fsync": s["fsync"],
    }
    shares["rest"] = ingest_total - sum(shares.values())
    result = {
        "benchmark": "ingest_throughput",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "pdfs": len(pdfs),
        "pages": pages,
        "rounds": args.repeat,
        "ingest_over_raw_median": round(median, 3),
        "goal": GOAL,
        "passes": median >= GOAL,
        "goal_issue_50": GOAL_50,
        "passes_issue_50": median >= GOAL_50,
        "ingest_over_raw_rounds": [round(x, 3) for x in ratios],
        "raw_pymupdf_pages_per_s": round(pages / raw_med, 1),
        "ingest_pages_per_s": round(pages / ingest_med, 1),
        "raw_seconds_median": round(raw_med, 3),
        "ingest_seconds_median": round(ingest_med, 3),
        "ingest_time_shares": {k: round(v / ingest_total, 3) for k, v in shares.items()},
        # raw builds one per page; ingest one per page for its text, one more per page with images
        "mupdf_text_pages_per_round": round(clocks.calls["mupdf_text_pages"] / args.repeat, 1),
        "layout_pass_over_raw_median": round(statistics.median(floors), 3) if floors else None,
        "asap_487": None if args.no_asap else asap_cost(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "pymupdf": pymupdf.VersionBind,
                    "load_avg_1m_at_start": round(load_before, 2), "load_avg_1m_at_end": round(os.getloadavg()[0], 2)},
    }
    RESULT_PATH.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = RESULT_PATH.with_suffix(".json.tmp")
    tmp_path.write_text(json.dumps(result, indent=2) + "\n")
    os.replace(tmp_path, RESULT_PATH)
    print(f"raw pymupdf : {result['raw_pymupdf_pages_per_s']:8.1f} pages/s (median round)")
    print(f"ingest      : {result['ingest_pages_per_s']:8.1f} pages/s (median round)")
    print(f"ratio       : median {median:.3f} over rounds {result['ingest_over_raw_rounds']} -> "
          f"{'PASS' if result['passes'] else 'FAIL'} (goal >= {GOAL}); "
          f"{'PASS' if result['passes_issue_50'] else 'FAIL'} (#50's goal >= {GOAL_50})")
    print("ingest time : " + ", ".join(f"{k} {v:.0%}" for k, v in result["ingest_time_shares"].items()))
    print(f"text pages  : {result['mupdf_text_pages_per_round']} per round for {pages} pages (raw: {pages})")
    if floors:
        print(f"layout pass : alone, median {result['layout_pass_over_raw_median']:.3f} of raw over rounds "
              f"{[round(x, 3) for x in floors]} (the most ingest reaches without changing it)")
    if (a := result["asap_487"]) is not None:
        print(f"ASAP 487    : {a['papers']} papers, {a['reviews']} reviews, {a['statuses']} statuses in "
              f"{a['import_seconds'] + a['seal_seconds']:.2f} s ({a['ms_per_paper']} ms/paper; "
              f"extract {a['extract_seconds']} s; rejected {a['rejected']})")
    print(f"load average {result['machine']['load_avg_1m_at_start']} -> {result['machine']['load_avg_1m_at_end']}; "
          f"wrote {RESULT_PATH.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
