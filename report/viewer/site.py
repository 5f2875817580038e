"""The page set: ROOT/viewer/ (the page, its CSS and JS, data/) beside ROOT/reports/ (the report pages,
whose audit keys link to ../viewer/index.html#key/…). The lists are written at once; a call's, a review's,
a system run's or an audit key's file is written when first asked for (`ensure`), or all by `write_all`."""

import shutil
import threading
from collections.abc import Callable
from functools import cached_property
from importlib import resources
from pathlib import Path

from peerlake.report.viewer import payload
from peerlake.report.viewer.catalog import Catalog, load_catalog
from peerlake.report.viewer.details import Reviews, call_detail, system_detail, system_row
from peerlake.report.viewer.diff import diff_page
from peerlake.report.viewer.index import CHUNK, chunks, index_rows, meta
from peerlake.report.viewer.keys import key_name, linked_keys, resolve
from peerlake.report.viewer.label import LabelSession
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.blobs import BlobStore, blob_store

STATIC = ("index.html", "viewer.css", "viewer.js", "label.js")
DETAILS = ("call", "review", "system", "key")


class Site:
    def __init__(self, root: Path, lake: Lake, db: Path | None, study: str | None = None,
                 manifest: Callable[[], dict] | None = None, chunk: int = CHUNK):
        self.root, self.lake, self.db, self.study, self.chunk = Path(root), lake, db, study, chunk
        self.viewer = self.root / "viewer"
        self._manifest = manifest
        self._lock = threading.Lock()
        self.label: LabelSession | None = None  # `peerlake label`'s session: the #label page and its POSTs

    @cached_property
    def catalog(self) -> Catalog:
        """The published calls (report.viewer.catalog.NotPublished when nothing is published)."""
        return load_catalog(self.db, self.study)

    @cached_property
    def blobs(self) -> BlobStore:
        return blob_store(self.lake)

    @cached_property
    def log(self) -> EventLog:
        """Only for an audit key: `peerlake audit`'s own resolution walks from the row to its events."""
        return EventLog(self.lake)

    @cached_property
    def reviews(self) -> Reviews:
        return Reviews(self.catalog, self.blobs)

    @cached_property
    def manifest(self) -> dict:
        if self._manifest is None:
            raise LookupError("no dbt manifest to resolve audit keys with")
        return self._manifest()

    @cached_property
    def keys(self) -> dict[str, str]:
        """data file name -> figure id, for every audit key the report pages here link to."""
        pages = sorted((self.root / "reports").glob("*.html"))
        return {key_name(f): f for f in linked_keys(pages)}

    def write_lists(self) -> None:
        """The page, its CSS and JS, the call index chunks, the review and system lists, the key list and
        the diff page's data."""
        self.viewer.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.viewer / "data", ignore_errors=True)  # files of an older lake state must not linger
        static = resources.files("peerlake.report.viewer").joinpath("static")
        for name in STATIC:
            (self.viewer / name).write_bytes(static.joinpath(name).read_bytes())
        rows = index_rows(self.catalog)
        for k, part in enumerate(chunks(rows, self.chunk)):
            payload.write(self.viewer, "index", str(k), part)
        reviews = [self.reviews.row(n) for n in range(len(self.reviews.keys))]
        systems = [system_row(self.catalog, n) for n in range(len(self.catalog.systems))]
        for kind, items in (("reviews", reviews), ("systems", systems)):
            for k, part in enumerate(chunks(items, self.chunk)):
                payload.write(self.viewer, kind, str(k), part)
        # read-only like the rest; a diff that cannot be computed is a message on its page (viewer.diff)
        payload.write(self.viewer, "diff", "diff", diff_page(self.lake, self.db, self.study))
        payload.write(self.viewer, "meta", "meta", {
            **meta(self.catalog, rows, self.chunk), "n_reviews": len(reviews), "n_systems": len(systems),
            "keys": {fid: name for name, fid in self.keys.items()},
            "reports": sorted(p.name for p in (self.root / "reports").glob("*.html")),
            "label": self.label is not None,
        })
        if self.label is not None:
            self.write_label()

    def write_label(self) -> None:
        """The label page's data (data/label/page.js): the sample, and what this annotator has done so far."""
        with self._lock:
            payload.write(self.viewer, "label", "page", self.label.page())

    def detail(self, kind: str, name: str):
        """The data of one detail file; KeyError/ValueError when it names nothing."""
        if kind == "call":
            return call_detail(self.catalog, self.blobs, name)
        if kind == "review":
            return self.reviews.detail(int(name))
        if kind == "system":
            return system_detail(self.catalog, int(name))
        if kind == "key":
            return resolve(self.keys[name], self.db, self.log, self.manifest, set(self.catalog.calls))
        raise KeyError(kind)

    def ensure(self, kind: str, name: str) -> Path | None:
        """The detail file, written now if it is not yet; None when it names nothing."""
        if kind not in DETAILS or not payload.SAFE_NAME.fullmatch(name):
            return None
        path = self.viewer / "data" / kind / f"{name}.js"
        with self._lock:  # two requests for one file write it once
            if not path.is_file():
                try:
                    data = self.detail(kind, name)
                except (KeyError, ValueError, IndexError, LookupError):
                    return None
                payload.write(self.viewer, kind, name, data)
        return path

    def write_all(self) -> int:
        """Every detail file (for a page set shared without a server); how many were written."""
        names = [("call", i) for i in self.catalog.calls if self.catalog.in_scope(self.catalog.calls[i])]
        names += [("review", str(n)) for n in range(len(self.reviews.keys))]
        names += [("system", str(n)) for n in range(len(self.catalog.systems))]
        names += [("key", k) for k in self.keys]
        return sum(self.ensure(kind, name) is not None for kind, name in names)


def copy_reports(src: Path, root: Path, study: str | None) -> list[Path]:
    """The report pages (all, or the study's) into ROOT/reports/, where their links find ../viewer/."""
    out = []
    for page in sorted(src.glob("*.html")) if src.is_dir() else []:
        if study is None or page.stem == study:
            (root / "reports").mkdir(parents=True, exist_ok=True)
            out.append(Path(shutil.copy2(page, root / "reports" / page.name)))
    return out
