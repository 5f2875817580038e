"""SubstanReview (Guo et al., Findings of EMNLP 2023): 550 peer reviews with human claim / evidence
spans, the gold standard the depth judge's units are validated against (mart quality_judge_validation).

Each line of `annotation_final/<split>.jsonl` is `{id, review, label: [[start, end, "Eval_pos_1" …]]}`
and becomes two events:
- `external_review_imported` (system "substanreview", paper_id "substanreview-<id>", review_id "<id>",
  body blob as ingest/external_reviews.py writes it), so the judges read it like any imported review
  (review key "external:substanreview:<id>");
- `span_annotation_imported` with the spans. Role: Eval_* (an evaluation) → claim, Jus_* (its
  justification) → premise, Major_claim → null; `pair` is the number a claim shares with its evidence.

Offsets. `start`/`end` are the dataset's, into the raw review (`text_sha256` is that text's hash).
The judge reads `JudgedReview.text` = "Text:\n" + review.strip() (judging/reviews.py), and its units'
`start` are offsets into that text; so each span also carries `judged_start`/`judged_end`, computed
here: the span with its surrounding whitespace trimmed (a unit is the review's own words, never
padding) and clipped to the stripped review (the raw spans may run into trailing whitespace), shifted
by where the stripped review sits in the judged text. Both are null for a whitespace-only span.
dbt matches units to spans on judged_start/judged_end only.

Annotators. `annotation_IAA/annotator_<n>.jsonl` hold three annotators' own spans of the agreement
subset (`{id, text, label, ...}`; their ids are not the final files' ids, so a line is matched to the
final review with the same text). Each becomes a `span_annotation_imported` with annotator
"annotator_<n>" on that review: the human–human agreement beside a judge's (mart judge_cards).
"""

import hashlib
import json
import re
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.warehouse.events import ExternalReviewImported, SpanAnnotationImported
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

DATASET = SYSTEM = "substanreview"
SPLITS = ("train", "test")
# judging/reviews.py: an external review has the one section ("text", review.strip()), and
# JudgedReview.text writes a section as "<Name>:\n<body>" (ingest may not import judging; a test
# checks the two agree on a real line).
JUDGED_PREFIX = "Text:\n"
_LABEL = re.compile(r"^(Eval|Jus)_(pos|neg)_(\d+)$|^Major_claim$")
ROLES = {"Eval": "claim", "Jus": "premise"}


class AnnotationLineError(ValueError):
    pass


def judged_offsets(review: str, start: int, end: int) -> tuple[int | None, int | None]:
    """(start, end) of review[start:end], trimmed of whitespace, in the text the judge reads."""
    lead = len(review) - len(review.lstrip())
    body_end = len(review.rstrip())
    s, e = max(start, lead), min(end, body_end)
    while s < e and review[s].isspace():
        s += 1
    while e > s and review[e - 1].isspace():
        e -= 1
    if s >= e:
        return None, None
    shift = len(JUDGED_PREFIX) - lead
    return s + shift, e + shift


def _span(review: str, item, k: int) -> dict:
    if not (isinstance(item, list) and len(item) == 3):
        raise AnnotationLineError(f"label {k} must be [start, end, name], got {item!r}")
    start, end, name = item
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (start, end)) or not 0 <= start < end <= len(review):
        raise AnnotationLineError(f"label {k}: offsets {start!r}..{end!r} are not a span of the "
                                  f"{len(review)}-character review")
    m = _LABEL.match(name) if isinstance(name, str) else None
    if m is None:
        raise AnnotationLineError(f"label {k}: unknown label {name!r} (Eval_pos|neg_N, Jus_pos|neg_N, Major_claim)")
    judged_start, judged_end = judged_offsets(review, start, end)
    return {"start": start, "end": end, "label": name, "role": ROLES.get(m.group(1)),
            "pair": int(m.group(3)) if m.group(3) else None, "judged_start": judged_start,
            "judged_end": judged_end}


def parse_line(line: str, text_key: str = "review") -> dict:
    """One JSONL line → {id, review, raw, spans}; raises AnnotationLineError naming what is wrong.
    `text_key`: the field holding the review ("text" in the annotator files)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise AnnotationLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise AnnotationLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise AnnotationLineError(f"not a JSON object ({type(obj).__name__})")
    rid = obj.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str) or not str(rid).strip():
        raise AnnotationLineError(f"missing or bad 'id': {rid!r}")
    try:  # the id is part of the paper id "substanreview-<id>"
        check_paper_id(f"{DATASET}-{str(rid).strip()}", "paper id (from 'id')")
    except PaperIdError as exc:
        raise AnnotationLineError(str(exc)) from None
    review = obj.get(text_key)
    if not isinstance(review, str) or not review.strip():
        raise AnnotationLineError(f"'{text_key}' must be a non-empty string")
    labels = obj.get("label")
    if not isinstance(labels, list):
        raise AnnotationLineError("'label' must be a list of [start, end, name]")
    spans = [_span(review, item, k) for k, item in enumerate(labels)]
    return {"id": str(rid).strip(), "review": review, "raw": obj, "spans": spans}


def import_substanreview(log: EventLog, data_dir: Path, split: str = "test",
                         limit: int | None = None) -> list[Outcome]:
    """Import the first `limit` non-blank lines (all when None) of annotation_final/<split>.jsonl.
    An outcome per line; a line already imported is skipped; a bad line is rejected, the rest go on."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: use one of {', '.join(SPLITS)}")
    path = Path(data_dir) / "annotation_final" / f"{split}.jsonl"
    # rejections are of kind "reviews" (stg_events__ingest_rejections accepts a fixed set); the path names the file
    batch = Batch(log, "reviews")
    text = batch.read_utf8(path)
    if text is None:
        return batch.commit()

    reviews = {e.review_id for e in log.iter_events("external_review_imported") if e.system == SYSTEM}
    annotated = {e.review_key for e in log.iter_events("span_annotation_imported")
                 if e.dataset == DATASET and e.annotator is None}
    seen = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if limit is not None and seen >= limit:
            break
        seen += 1
        where, item = f"{path} line {line_no}", f"line {line_no}"
        with batch.guard(path, where=where, item=item):
            try:
                fields = parse_line(line)
            except AnnotationLineError as exc:
                batch.reject(path, str(exc), where=where, item=item)
                continue
            rid = fields["id"]
            paper_id, review_key = f"{DATASET}-{rid}", f"external:{SYSTEM}:{rid}"
            if rid in reviews and review_key in annotated:
                batch.note("skipped", path, item=item, paper_id=paper_id, reason=f"{where}: already imported ({rid})")
                continue
            events = []
            if rid not in reviews:  # the same body blob as ingest/external_reviews.py writes
                body = json.dumps({"system": SYSTEM, "text": fields["review"], "line": fields["raw"]},
                                  sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                events.append(ExternalReviewImported(
                    paper_id=paper_id, review_id=rid, system=SYSTEM, sample_index=0, score=None, confidence=None,
                    body_sha256=log.blobs.put_text(body), source_path=str(path), line_no=line_no))
                reviews.add(rid)
            if review_key not in annotated:
                events.append(SpanAnnotationImported(
                    review_key=review_key, dataset=DATASET, split=split, annotator=None,
                    spans_json=json.dumps(fields["spans"], separators=(",", ":")),
                    text_sha256=hashlib.sha256(fields["review"].encode("utf-8")).hexdigest(),
                    source_path=str(path), line_no=line_no))
                annotated.add(review_key)
            # one outcome per line (its last event); both events are written by commit()
            batch.events.extend(events[:-1])
            batch.emit("imported", path, events[-1], item=item, paper_id=paper_id)
    return batch.commit()


def _final_reviews(data_dir: Path) -> dict[str, tuple[str, str]]:
    """The final files' review text → (split, id), for matching the annotator files' lines."""
    out: dict[str, tuple[str, str]] = {}
    for split in SPLITS:
        path = Path(data_dir) / "annotation_final" / f"{split}.jsonl"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").split("\n"):
            try:
                fields = parse_line(line)
            except AnnotationLineError:
                continue  # import_substanreview reports the final files' bad lines
            out.setdefault(fields["review"], (split, fields["id"]))
    return out


def import_substanreview_annotators(log: EventLog, data_dir: Path) -> list[Outcome]:
    """Import every annotation_IAA/annotator_<n>.jsonl line as that annotator's spans of the final review
    with the same text. An outcome per line; a line already imported is skipped; a bad line, or one whose
    text is in no final file, is rejected and the rest go on. No folder: no outcome."""
    folder = Path(data_dir) / "annotation_IAA"
    batch = Batch(log, "reviews")
    if not folder.is_dir():
        return batch.commit()
    finals = _final_reviews(data_dir)
    annotated = {(e.review_key, e.annotator) for e in log.iter_events("span_annotation_imported")
                 if e.dataset == DATASET and e.annotator is not None}
    for path in sorted(folder.glob("annotator_*.jsonl")):
        annotator = path.stem
        text = batch.read_utf8(path)
        if text is None:
            continue
        # "\n" only: these files hold review texts with U+2028 inside strings, where splitlines() would cut
        for line_no, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            where, item = f"{path} line {line_no}", f"{annotator} line {line_no}"
            with batch.guard(path, where=where, item=item):
                try:
                    fields = parse_line(line, text_key="text")
                except AnnotationLineError as exc:
                    batch.reject(path, str(exc), where=where, item=item)
                    continue
                found = finals.get(fields["review"])
                if found is None:
                    batch.reject(path, "its text is the text of no review in annotation_final/", where=where,
                                 item=item)
                    continue
                split, rid = found
                paper_id, review_key = f"{DATASET}-{rid}", f"external:{SYSTEM}:{rid}"
                if (review_key, annotator) in annotated:
                    batch.note("skipped", path, item=item, paper_id=paper_id,
                               reason=f"{where}: already imported ({annotator}, {rid})")
                    continue
                batch.emit("imported", path, SpanAnnotationImported(
                    review_key=review_key, dataset=DATASET, split=split, annotator=annotator,
                    spans_json=json.dumps(fields["spans"], separators=(",", ":")),
                    text_sha256=hashlib.sha256(fields["review"].encode("utf-8")).hexdigest(),
                    source_path=str(path), line_no=line_no), item=item, paper_id=paper_id)
                annotated.add((review_key, annotator))
    return batch.commit()


def imported_paper_ids(outcomes: list[Outcome]) -> list[str]:
    """The paper ids of the lines that are in the lake now (imported or already there), in file order."""
    out: list[str] = []
    for o in outcomes:
        if o.status in ("imported", "skipped") and o.paper_id and o.paper_id not in out:
            out.append(o.paper_id)
    return out
