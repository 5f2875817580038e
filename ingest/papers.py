"""PDF files → `paper_ingested` events (or `ingest_rejected` when a file is set aside).

For each ingested version the lake keeps, before the event that names them: the original PDF bytes
(a blob under `pdf_sha256`, so an audit can show the exact input), every extracted image, and the
package (a blob under `package_sha256`). Re-ingesting the same bytes under the same paper id is a
no-op; different bytes are a new version.
"""

from pathlib import Path

from peerlake.ingest.batch import Batch, Outcome
from peerlake.ingest.extraction import extract_package
from peerlake.ingest.package import ManuscriptError
from peerlake.warehouse import settings
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import PaperIngested
from peerlake.warehouse.ids import suggest_paper_id
from peerlake.warehouse.log import EventLog


def latest_versions(log: EventLog) -> dict[str, PaperIngested]:
    """The newest `paper_ingested` event of every paper, by paper id."""
    latest: dict[str, PaperIngested] = {}
    for ev in log.iter_events("paper_ingested"):
        # ULIDs sort by creation time, so the largest id is the newest version.
        if ev.paper_id not in latest or ev.event_id > latest[ev.paper_id].event_id:
            latest[ev.paper_id] = ev
    return latest


def ingest_pdf(log: EventLog, path: Path, paper_id: str | None = None, venue: str | None = None,
               is_synthetic: bool = False, max_pages: int | None = None,
               max_images: int | None = None, record_rejection: bool = True,
               versions: dict[str, PaperIngested] | None = None) -> Outcome:
    """Ingest one PDF as a new paper version; never raises for bad input (status "rejected",
    recorded as an `ingest_rejected` event). A batch passes one `latest_versions(log)` dict as
    `versions` (kept up to date here) instead of re-reading the log for every file.

    Each file is committed on its own: extraction takes seconds, and a crash mid-folder should
    keep the files already done."""
    batch = Batch(log, "pdf", record_rejections=record_rejection)
    with batch.guard(Path(path)):
        _ingest_one(batch, Path(path), paper_id, venue, is_synthetic, max_pages, max_images,
                    latest_versions(log) if versions is None else versions)
    batch.commit()
    return batch.outcomes[-1]


def _ingest_one(batch: Batch, path: Path, paper_id: str | None, venue: str | None,
                is_synthetic: bool, max_pages: int | None, max_images: int | None,
                versions: dict[str, PaperIngested]) -> Outcome:
    pid = batch.paper_id(path, paper_id or path.stem,
                         hint="" if paper_id else f"; rename the file or give --paper-id (e.g. --paper-id "
                                                  f"{suggest_paper_id(path.stem)})")
    if pid is None:
        return batch.outcomes[-1]
    try:
        data = path.read_bytes()
    except OSError as exc:
        return batch.reject(path, f"cannot be read ({exc.strerror or exc})", paper_id=pid)
    pdf_sha = sha256_hex(data)
    blobs = batch.log.blobs
    latest = versions.get(pid)
    if latest is not None and latest.pdf_sha256 == pdf_sha:
        # Lakes written before the PDF bytes were kept get them on the next ingest of the file.
        if not blobs.exists(pdf_sha):
            blobs.put(data)
        return batch.note("unchanged", path, paper_id=pid, event=latest)
    try:
        package, images = extract_package(
            data, max_pages=settings.ingest_max_pages() if max_pages is None else max_pages,
            max_images=settings.ingest_max_images() if max_images is None else max_images)
    except ManuscriptError as exc:
        return batch.reject(path, str(exc), paper_id=pid, severity=exc.severity, content_sha256=pdf_sha)
    for blob in images.values():
        blobs.put(blob)
    package_sha = blobs.put_text(package.to_json())
    # The exact input bytes, under the hash the event names: what an audit shows byte for byte.
    blobs.put(data)
    event = PaperIngested(
        paper_id=pid,
        title=package.title,
        source_uri=path.resolve().as_uri(),
        pdf_sha256=pdf_sha,
        package_sha256=package_sha,
        n_pages=package.n_pages,
        n_text_records=package.n_text_records,
        n_chars=package.n_chars,
        venue=venue,
        is_synthetic=is_synthetic,
        n_images=package.n_images,
        body_chars=package.part_chars("front", "body"),
        appendix_chars=package.part_chars("appendix"),
        references_chars=package.part_chars("references"),
        n_references=len(package.references),
        n_sections=len(package.sections),
        n_hidden_records=package.n_hidden_records,
    )
    versions[pid] = event
    return batch.emit("new_version" if latest else "ingested", path, event, paper_id=pid)


def iter_pdfs(paths: list[Path]) -> list[Path]:
    """Files as given, folders expanded to their *.pdf files (sorted, not recursive)."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(q for q in p.iterdir() if q.suffix.lower() == ".pdf") if p.is_dir() else [p])
    return out


def not_pdfs(paths: list[Path]) -> list[Path]:
    """The files in the given folders that iter_pdfs leaves out (not *.pdf), so a tally can name them;
    hidden files (.DS_Store and the like) are nobody's paper and are left out of it too."""
    return [q for p in map(Path, paths) if p.is_dir() for q in sorted(p.iterdir())
            if q.is_file() and q.suffix.lower() != ".pdf" and not q.name.startswith(".")]
