"""A user's related-work list (JSONL) → `related_work_imported`, for the offline literature index.

One JSON object per line (format in ingest/README.md): `title` (required), optional `abstract`,
`year`, `venue` and `id`. Without an id the work is named by a hash of its title (whitespace and
case folded), so the same title imported twice is one work. Importing an id again is skipped; a bad
line is quarantined and the other lines still import.
"""

import hashlib
import json
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.warehouse.events import RelatedWorkImported
from peerlake.warehouse.log import EventLog

TITLE_MAX_CHARS = 1000
ABSTRACT_MAX_CHARS = 20_000  # the index cuts abstracts far shorter; this only refuses pasted papers
_YEARS = range(1600, 2200)


class RelatedWorkLineError(ValueError):
    pass


def title_id(title: str) -> str:
    """The default work id: the first 16 hex digits of SHA-256 of the folded title."""
    return hashlib.sha256(" ".join(title.split()).casefold().encode("utf-8")).hexdigest()[:16]


def _optional_text(obj: dict, key: str, max_chars: int) -> str | None:
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise RelatedWorkLineError(f"'{key}' must be a string, got {type(v).__name__}")
    if len(v) > max_chars:
        raise RelatedWorkLineError(f"'{key}' is {len(v)} characters (at most {max_chars})")
    return " ".join(v.split()) or None


def parse_line(line: str) -> dict:
    """One JSONL line → validated fields; raises RelatedWorkLineError naming what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RelatedWorkLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise RelatedWorkLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise RelatedWorkLineError(f"not a JSON object ({type(obj).__name__})")
    title = _optional_text(obj, "title", TITLE_MAX_CHARS)
    if title is None:
        raise RelatedWorkLineError("missing or empty 'title'")
    year = obj.get("year")
    if year is not None and (isinstance(year, bool) or not isinstance(year, int) or year not in _YEARS):
        raise RelatedWorkLineError(f"'year' must be an integer year, got {year!r}")
    work_id = obj.get("id")
    if work_id is not None and (not isinstance(work_id, str) or not work_id.strip()):
        raise RelatedWorkLineError(f"'id' must be a non-empty string, got {work_id!r}")
    return {"work_id": work_id.strip() if work_id else title_id(title), "title": title,
            "abstract": _optional_text(obj, "abstract", ABSTRACT_MAX_CHARS), "year": year,
            "venue": _optional_text(obj, "venue", TITLE_MAX_CHARS)}


def import_related_work(log: EventLog, path: Path) -> list[Outcome]:
    """Import one JSONL file (an outcome per non-blank line, `item` "line N"); never raises for bad
    input. A file that cannot be read as UTF-8 text is rejected whole."""
    path = Path(path)
    batch = Batch(log, "related_work")
    text = batch.read_utf8(path)
    if text is None:
        return batch.commit()

    known = {e.work_id for e in log.iter_events("related_work_imported")}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where, item = f"{path} line {line_no}", f"line {line_no}"
        with batch.guard(path, where=where, item=item):
            try:
                fields = parse_line(line)
            except RelatedWorkLineError as exc:
                batch.reject(path, str(exc), where=where, item=item)
                continue
            if fields["work_id"] in known:
                batch.note("skipped", path, item=item, reason=f"{where}: already imported ({fields['work_id']})")
                continue
            batch.emit("imported", path, RelatedWorkImported(**fields, source_path=str(path), line_no=line_no),
                       item=item)
            known.add(fields["work_id"])
    return batch.commit()
