"""Reviews made by other systems (DeepReview, SEA-E, a human panel …) → `external_review_imported`.

One JSON object per line (format in ingest/README.md): `paper_id`, `review_id`, optional
`sample_index`, `score`, `confidence`, and the text as `text` or as sections (`summary`,
`strengths`, `weaknesses`, `questions`). A bad line is quarantined; the other lines still import.
"""

import json
import math
import re
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.warehouse.events import ExternalReviewImported
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

SECTIONS = ("summary", "strengths", "weaknesses", "questions")
_SYSTEM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}$")


class ReviewLineError(ValueError):
    pass


def _number(obj: dict, key: str) -> float | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ReviewLineError(f"'{key}' must be a finite number, got {v!r}")
    return float(v)


def _text_of(obj: dict) -> str:
    """The review text: `text`, or the sections joined under their names."""
    if obj.get("text") is not None:
        if not isinstance(obj["text"], str) or not obj["text"].strip():
            raise ReviewLineError("'text' must be a non-empty string")
        return obj["text"]
    parts = []
    for key in SECTIONS:
        v = obj.get(key)
        if v is None:
            continue
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = "\n".join(f"- {x}" for x in v)
        if not isinstance(v, str):
            raise ReviewLineError(f"'{key}' must be a string or a list of strings")
        if v.strip():
            parts.append(f"{key.capitalize()}:\n{v.strip()}")
    if not parts:
        raise ReviewLineError(f"no review text: give 'text' or at least one of {', '.join(SECTIONS)}")
    return "\n\n".join(parts)


def parse_line(line: str) -> dict:
    """One JSONL line → validated fields; raises ReviewLineError naming what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ReviewLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ReviewLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise ReviewLineError(f"not a JSON object ({type(obj).__name__})")
    for key in ("paper_id", "review_id"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ReviewLineError(f"missing or empty '{key}'")
    try:
        paper_id = check_paper_id(obj["paper_id"].strip(), "paper_id")
    except PaperIdError as exc:
        raise ReviewLineError(str(exc)) from None
    sample = obj.get("sample_index", 0)
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise ReviewLineError(f"'sample_index' must be a non-negative integer, got {sample!r}")
    return {"paper_id": paper_id, "review_id": obj["review_id"].strip(),
            "sample_index": sample, "score": _number(obj, "score"),
            "confidence": _number(obj, "confidence"), "text": _text_of(obj), "raw": obj}


def import_external_reviews(log: EventLog, path: Path, system: str) -> list[Outcome]:
    """Import one JSONL file as reviews by `system` (an outcome per non-blank line, `item` "line N");
    never raises for bad input. A file that cannot be read as UTF-8 text is rejected whole."""
    path = Path(path)
    if not _SYSTEM.match(system or ""):
        raise ValueError(f"--system {system!r}: use 1–64 letters, digits or ._:+- (it names the reviewer)")
    batch = Batch(log, "reviews")
    text = batch.read_utf8(path)
    if text is None:
        return batch.commit()

    known = {(e.system, e.review_id) for e in log.iter_events("external_review_imported")}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where, item = f"{path} line {line_no}", f"line {line_no}"
        with batch.guard(path, where=where, item=item):
            _import_line(batch, path, line, line_no, system, known)
    return batch.commit()


def _import_line(batch: Batch, path: Path, line: str, line_no: int, system: str, known: set) -> None:
    where, item = f"{path} line {line_no}", f"line {line_no}"
    try:
        fields = parse_line(line)
    except ReviewLineError as exc:
        batch.reject(path, str(exc), where=where, item=item)
        return
    rid = fields["review_id"]
    if (system, rid) in known:
        batch.note("skipped", path, item=item, paper_id=fields["paper_id"],
                   reason=f"{where}: already imported ({rid})")
        return
    body = json.dumps({"system": system, "text": fields["text"], "line": fields["raw"]},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    event = ExternalReviewImported(
        paper_id=fields["paper_id"], review_id=rid, system=system,
        sample_index=fields["sample_index"], score=fields["score"],
        confidence=fields["confidence"], body_sha256=batch.log.blobs.put_text(body),
        source_path=str(path), line_no=line_no)
    batch.emit("imported", path, event, item=item, paper_id=fields["paper_id"])
    known.add((system, rid))
