"""RevUtil (Sadallah et al., EMNLP 2025): review comments rated by about three people each on
actionability, grounding/specificity, verifiability (1–5, X = no claim), helpfulness (1–5) and
professional tone (0/1) → the constructiveness judge's D1, D2, D3 and D5.

`all_human_annotations_processed.csv`: one record per comment — `review_point` (the comment),
`focused_review` (the review it comes from), `paper_id`, `venue`, `batch`, and per aspect the raters'
`{'annotators': [...], 'labels': [...]}` (a Python literal: read with ast.literal_eval, which parses and
never runs) beside the majority `<aspect>_label` and its `_label_type` (gold, silver, None).
The focused review is imported once as an external review of system "revutil" (paper id
"revutil-<paper_id>"); each rater of a comment is one label row with all that person's aspects, and the
majority labels one more row with no annotator (the reference). The comment's offsets are where it
stands verbatim in the review (null when it does not). Mapping: prompts/label_mappings/revutil.toml.
"""

import ast
import csv
import hashlib
import io
from pathlib import Path

from peerlake.ingest.label_mapping import LabelMapping, load
from peerlake.ingest.labelled_reviews import Imported, LabelImport, inside
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

DATASET = "revutil"
FILE = "all_human_annotations_processed.csv"
ASPECTS = ("actionability", "grounding_specificity", "verifiability", "helpfulness", "professional_tone",
           "valid_point", "addressed_to_author")
COLUMNS = ("review_point", "paper_id", "focused_review", *ASPECTS)
MAX_FIELD_CHARS = 1_000_000  # the longest real field (a focused review) is ~20,000 characters
MAX_RATERS_CHARS = 2_000  # a raters cell of eight people is ~250 characters


class RowError(ValueError):
    pass


def _short(text: str, n: int = 12) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def raters(cell: str, aspect: str) -> list[tuple[str, str]]:
    """One aspect's raters cell → [(annotator, label)]; RowError says what is wrong."""
    if len(cell) > MAX_RATERS_CHARS:
        raise RowError(f"{aspect}: the raters cell is {len(cell)} characters, more than {MAX_RATERS_CHARS}")
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise RowError(f"{aspect}: {cell[:60]!r} is not {{'annotators': [...], 'labels': [...]}}") from None
    if not isinstance(value, dict) or not isinstance(value.get("annotators"), list) \
            or not isinstance(value.get("labels"), list):
        raise RowError(f"{aspect}: {cell[:60]!r} is not {{'annotators': [...], 'labels': [...]}}")
    people, labels = value["annotators"], value["labels"]
    if len(people) != len(labels) or not all(isinstance(x, str) and x.strip() for x in [*people, *labels]):
        raise RowError(f"{aspect}: annotators and labels must be lists of text of one length, got {cell[:80]!r}")
    if len(set(people)) != len(people):
        raise RowError(f"{aspect}: an annotator rated the comment twice ({cell[:80]!r})")
    return [(p.strip(), label.strip()) for p, label in zip(people, labels, strict=True)]


def parse_row(row: dict) -> dict:
    """One CSV record → {paper_id, review, point, people: {annotator: labels}, majority: labels}."""
    point, review = (row.get("review_point") or "").strip(), row.get("focused_review") or ""
    if not point:
        raise RowError("review_point is empty")
    if not review.strip():
        raise RowError("focused_review is empty")
    try:
        paper_id = check_paper_id(f"{DATASET}-{(row.get('paper_id') or '').strip()}", "paper id (from paper_id)")
    except PaperIdError as exc:
        raise RowError(str(exc)) from None
    people: dict[str, dict] = {}
    for aspect in ASPECTS:
        for person, label in raters(row.get(aspect) or "", aspect):
            people.setdefault(person, {})[aspect] = label
    majority = {}
    for aspect in ASPECTS:
        label = (row.get(f"{aspect}_label") or "").strip()
        majority[aspect] = None if label in ("", "None") else label
        majority[f"{aspect}_label_type"] = (row.get(f"{aspect}_label_type") or "").strip() or None
    return {"paper_id": paper_id, "review": review, "point": point, "people": people, "majority": majority,
            "venue": row.get("venue"), "batch": row.get("batch")}


def _file(root: Path) -> Path:
    if root.is_dir():
        if not (root / FILE).exists():
            raise ValueError(f"{root} is not a RevUtil folder: it has no {FILE}")
        return root / FILE
    if root.suffix.lower() != ".csv":
        raise ValueError(f"{root} is not a RevUtil folder or CSV file (give the folder holding {FILE})")
    return root


def import_revutil(log: EventLog, root: Path, mapping: LabelMapping | None = None) -> Imported:
    """Import RevUtil's human annotations (the folder, or the CSV itself). ValueError when it is neither;
    a file without RevUtil's columns is set aside whole, a bad record by its row, and the rest go on."""
    root = Path(root)
    path = _file(root)
    imp = LabelImport(log, mapping or load(DATASET))
    if root.is_dir() and not inside(root, path):
        imp.batch.reject(path, f"points outside {root} (a link); refused")
        return imp.commit()
    text = imp.batch.read_utf8(path)
    if text is None:
        return imp.commit()
    csv.field_size_limit(MAX_FIELD_CHARS)
    reader = csv.DictReader(io.StringIO(text, newline=""))  # not splitlines: U+2028 sits inside fields
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        imp.batch.reject(path, f"not RevUtil's annotations: no column {', '.join(missing)}")
        return imp.commit()
    row_no = 1  # the header is record 1
    while True:
        row_no += 1
        where = f"{path} row {row_no}"
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            imp.batch.reject(path, f"cannot be read as CSV ({exc}); the rows after it are not read", where=where)
            break
        with imp.batch.guard(path, where=where, item=f"row {row_no}"):
            _row(imp, path, row, row_no, where)
    return imp.commit()


def _row(imp: LabelImport, path: Path, row: dict, row_no: int, where: str) -> None:
    try:
        fields = parse_row(row)
    except RowError as exc:
        imp.batch.reject(path, str(exc), where=where, item=f"row {row_no}")
        return
    review, point = fields["review"], fields["point"]
    review_id = f"{fields['paper_id']}-{_short(review)}"
    review_key = imp.review(path, fields["paper_id"], review_id, review,
                            {"paper_id": row.get("paper_id"), "venue": fields["venue"]}, row_no)
    found = review.find(point)
    common = {"where": where, "item_key": f"{review_id}#{_short(point)}", "review_key": review_key,
              "review_text": review, "item_text": point, "start": None if found < 0 else found,
              "paper_id": fields["paper_id"], "split": None, "line_no": row_no}
    for person, labels in sorted(fields["people"].items()):
        imp.label(path, labels=labels, annotator=person, is_reference=False, **common)
    imp.label(path, labels=fields["majority"], annotator=None, is_reference=True, **common)
