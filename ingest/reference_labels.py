"""Human-made labels a judge is audited against (JSONL) → `reference_label_imported`.

One JSON object per line:
  - the subject: `subject_key`, or `variant_id` + `review_key` (the detection judge's subject
    "<variant_id>|<review_key>"; review keys as judging.reviews names them, e.g. "peerlake:<key>");
  - the label: a `label` object, or else every other key of the line (so {"variant_id": …,
    "review_key": …, "identified": true} is enough);
  - optional `paper_id`, `labelled_by` (who verified it).
Dataset "detection_verified" (the detection judge's sensitivity, the Multi-Layered Review paper) needs a boolean
`identified` in the label. A line identical to one already imported (dataset, subject, label) is
skipped; a bad line is reported, recorded as `ingest_rejected` and set aside, and the rest import. A
newer label for the same subject supersedes the older one in the marts.
"""

import json
from pathlib import Path

from ingest.batch import TOO_DEEP, Batch, Outcome
from warehouse.events import ReferenceLabelImported
from warehouse.ids import PaperIdError, check_paper_id
from warehouse.log import EventLog

SOURCE = "reference_labels"  # the ingest_rejected.source of this importer
DETECTION_VERIFIED = "detection_verified"
STATUSES = ("imported", "skipped", "rejected")
_SUBJECT_KEYS = ("subject_key", "variant_id", "review_key", "paper_id", "labelled_by")


class LabelLineError(ValueError):
    pass


def _text(obj: dict, key: str) -> str | None:
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip():
        raise LabelLineError(f"'{key}' must be a non-empty string, got {v!r}")
    return v.strip()


def parse_line(line: str, dataset: str) -> dict:
    """One JSONL line → the event's fields; raises LabelLineError naming what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LabelLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise LabelLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise LabelLineError(f"not a JSON object ({type(obj).__name__})")
    subject = _text(obj, "subject_key")
    variant, review = _text(obj, "variant_id"), _text(obj, "review_key")
    if subject is None:
        if variant is None or review is None:
            raise LabelLineError("no subject: give 'subject_key', or 'variant_id' and 'review_key'")
        subject = f"{variant}|{review}"
    elif (variant or review) and subject != f"{variant}|{review}":
        raise LabelLineError(f"'subject_key' {subject!r} disagrees with variant_id|review_key")
    if "label" in obj:
        label = obj["label"]
        if not isinstance(label, dict) or not label:
            raise LabelLineError("'label' must be a non-empty JSON object")
    else:
        label = {k: v for k, v in obj.items() if k not in _SUBJECT_KEYS}
        if not label:
            raise LabelLineError("no label: give 'label' or label keys such as 'identified'")
    if dataset == DETECTION_VERIFIED and not isinstance(label.get("identified"), bool):
        raise LabelLineError(f"dataset {DETECTION_VERIFIED}: 'identified' must be true or false, "
                             f"got {label.get('identified')!r}")
    paper_id = _text(obj, "paper_id")
    try:
        paper_id = None if paper_id is None else check_paper_id(paper_id, "paper_id")
    except PaperIdError as exc:
        raise LabelLineError(str(exc)) from None
    return {"subject_key": subject, "paper_id": paper_id, "labelled_by": _text(obj, "labelled_by"),
            "label_json": json.dumps(label, sort_keys=True, ensure_ascii=False)}


def import_reference_labels(log: EventLog, path: Path, dataset: str) -> list[Outcome]:
    """Import one JSONL file (an outcome per non-blank line, `item` "line N"); never raises for bad
    input. A file that cannot be read as UTF-8 text is rejected whole."""
    if not dataset or not dataset.strip():
        raise ValueError("dataset: give a name, e.g. --dataset detection_verified")
    path = Path(path)
    batch = Batch(log, SOURCE)
    text = batch.read_utf8(path)
    if text is None:
        return batch.commit()
    known = {(e.dataset, e.subject_key, e.label_json) for e in log.iter_events("reference_label_imported")}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where, item = f"{path} line {line_no}", f"line {line_no}"
        with batch.guard(path, where=where, item=item):
            try:
                fields = parse_line(line, dataset)
            except LabelLineError as exc:
                batch.reject(path, str(exc), where=where, item=item)
                continue
            key = (dataset, fields["subject_key"], fields["label_json"])
            if key in known:
                batch.note("skipped", path, item=item, reason=f"{where}: already imported ({fields['subject_key']})")
                continue
            batch.emit("imported", path, ReferenceLabelImported(dataset=dataset, source_path=str(path),
                                                                line_no=line_no, **fields),
                       item=item, paper_id=fields["paper_id"])
            known.add(key)
    return batch.commit()
