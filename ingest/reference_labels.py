"""Human-made labels a judge is audited against (JSONL) → `reference_label_imported`.

One JSON object per line:
  - the subject: `subject_key`, or `variant_id` + `review_key` (the detection judge's subject
    "<variant_id>|<review_key>"; review keys as judging.reviews names them, e.g. "peerlake:<key>");
  - the label: a `label` object, or else every other key of the line (so {"variant_id": …,
    "review_key": …, "identified": true} is enough);
  - optional `paper_id`, `labelled_by` (who verified it).
Dataset "detection_verified" (the detection judge's sensitivity, the Multi-Layered Review paper) needs a boolean
`identified` in the label.

A span label (a line with `start` / `end`: the judge cards' human agreement, mart judge_cards) is
(review, unit span, label): `review_key` (or `subject_key`), integer `start` < `end` indexing the text
the judge reads (JudgedReview.text, the offsets of the depth judge's units), a `label` (a string, or a
number for an ordinal scale), optional `dimension` (the judge unit's field it is compared with,
default "role") and `annotator` (absent: the reference / adjudicated label). Its label_json is
{start, end, label, dimension[, annotator]}; labelled_by is the annotator. Every span label counts
(a review has many); the subject-label rule below is not theirs.

A line identical to one already imported (dataset, subject, label) is skipped; a bad line is reported
with its line number, recorded as `ingest_rejected` and set aside, and the rest import. A newer
subject label for the same subject supersedes the older one in the marts.
"""

import json
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.warehouse.events import ReferenceLabelImported
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

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
    if "start" in obj or "end" in obj:
        return _span_label(obj, dataset)
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


def _span_label(obj: dict, dataset: str) -> dict:
    """A (review, unit span, label) line → the event's fields; raises LabelLineError."""
    if dataset == DETECTION_VERIFIED:
        raise LabelLineError(f"dataset {DETECTION_VERIFIED} takes subject labels, not spans ('start'/'end')")
    review, subject = _text(obj, "review_key"), _text(obj, "subject_key")
    if review and subject and review != subject:
        raise LabelLineError(f"'subject_key' {subject!r} disagrees with 'review_key' {review!r}")
    review = review or subject
    if review is None:
        raise LabelLineError("a span label needs 'review_key' (the judged review, e.g. external:<system>:<id>)")
    start, end = obj.get("start"), obj.get("end")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (start, end)) or not 0 <= start < end:
        raise LabelLineError(f"'start' and 'end' must be whole numbers with 0 <= start < end, got {start!r}..{end!r}")
    label = obj.get("label")
    if isinstance(label, bool) or not isinstance(label, str | int | float) or (isinstance(label, str)
                                                                               and not label.strip()):
        raise LabelLineError(f"'label' must be a non-empty string or a number, got {label!r}")
    unknown = sorted(set(obj) - {"review_key", "subject_key", "start", "end", "label", "dimension", "annotator",
                                 "paper_id"})
    if unknown:  # a misspelt key (e.g. "annotater") would otherwise vanish without a word
        raise LabelLineError(f"unknown key(s) {', '.join(map(repr, unknown))} in a span label")
    dimension, annotator = _text(obj, "dimension") or "role", _text(obj, "annotator")
    paper_id = _text(obj, "paper_id")
    try:
        paper_id = None if paper_id is None else check_paper_id(paper_id, "paper_id")
    except PaperIdError as exc:
        raise LabelLineError(str(exc)) from None
    body = {"start": start, "end": end, "label": label.strip() if isinstance(label, str) else label,
            "dimension": dimension, **({"annotator": annotator} if annotator else {})}
    return {"subject_key": review, "paper_id": paper_id, "labelled_by": annotator,
            "label_json": json.dumps(body, sort_keys=True, ensure_ascii=False)}


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
