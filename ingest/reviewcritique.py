"""ReviewCritique, LLM-review part (Du et al., EMNLP 2024): 20 NLP papers, three LLM reviews of each
split into segments, every segment marked reliable or deficient by NLP experts (with the error type and
why) → the flaw judge's validity call. Evaluation only: the dataset's licence forbids training on it.

`ReviewCritique_LLM.jsonl`: one paper a line — `title`, `body_text` (the paper), `decision`, and per
model (`claude_opus`, `gpt4`, `gemini_pro_1.5`) `{review: [{segment_text, topic_class_1, topic_class_2,
reliability (Yes/No), explanation, error_type}], score}` (missing values are JSON NaN).
Each LLM review is its segments joined by newlines, imported once as an external review of system
"reviewcritique" (paper id "reviewcritique-<hash of the title>", review id "<paper id>.<model>"); each
segment one label row with no annotator (the experts are not named): `error_type` is "reliable" for a
reliable segment, the expert's type (lower case) for a deficient one, "unspecified" when none is given.
A segment marked reliable yet given an error type contradicts itself and is set aside. The paper itself
is ingested as a plain-text manuscript (`paper_ingested`, ingest/plain_text.py) under the same paper id,
so the flaw judge can validate the reviews' criticisms with the manuscript at hand. Mapping:
prompts/label_mappings/reviewcritique.toml.
"""

import hashlib
import json
import math
import re
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP
from peerlake.ingest.label_mapping import LabelMapping, load
from peerlake.ingest.labelled_reviews import Imported, LabelImport, inside
from peerlake.ingest.package import ManuscriptError
from peerlake.ingest.papers import latest_versions
from peerlake.ingest.plain_text import text_package
from peerlake.warehouse.events import PaperIngested
from peerlake.warehouse.log import EventLog

DATASET = "reviewcritique"
FILE = "ReviewCritique_LLM.jsonl"
MODELS = ("claude_opus", "gpt4", "gemini_pro_1.5")
MAX_FILE_BYTES = 50_000_000  # the real file is 1.3 MB
# Two real papers' text holds a figure's glyph codes as UTF-16 (2,172 NULs in one): the package leaves
# out control characters other than tab and newline; the blob named by pdf_sha256 keeps the exact text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class PaperLineError(ValueError):
    pass


def _text(value) -> str | None:
    """A JSON value that stands for text: NaN and blanks are None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if not isinstance(value, str):
        raise PaperLineError(f"{value!r} is not text")
    return value.strip() or None


def segment_labels(seg: dict) -> dict:
    """A segment's labels as the mapping reads them; PaperLineError when they contradict each other."""
    reliability, error_type = _text(seg.get("reliability")), _text(seg.get("error_type"))
    if reliability not in ("Yes", "No"):
        raise PaperLineError(f"reliability must be Yes or No, got {seg.get('reliability')!r}")
    if reliability == "Yes" and error_type:
        raise PaperLineError(f"marked reliable yet given error type {error_type!r}: the labels contradict "
                             "each other")
    kind = "reliable" if reliability == "Yes" else (error_type or "unspecified").lower()
    return {"reliability": reliability, "error_type": kind, "explanation": _text(seg.get("explanation")),
            "topic_class_1": _text(seg.get("topic_class_1")), "topic_class_2": _text(seg.get("topic_class_2"))}


def parse_line(line: str) -> dict:
    """One JSONL line → {paper_id, title, body, decision, reviews: {model: [segment dict]}}."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PaperLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise PaperLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise PaperLineError(f"not a JSON object ({type(obj).__name__})")
    title, body = _text(obj.get("title")), _text(obj.get("body_text"))
    if not title or not body:
        raise PaperLineError("'title' and 'body_text' must be non-empty text")
    reviews = {}
    for model in MODELS:
        review = obj.get(model)
        if review is None:
            continue
        segments = review.get("review") if isinstance(review, dict) else None
        if not isinstance(segments, list) or not all(isinstance(s, dict) and isinstance(s.get("segment_text"), str)
                                                     and s["segment_text"].strip() for s in segments) or not segments:
            raise PaperLineError(f"{model}: 'review' must be a non-empty list of segments with segment_text")
        reviews[model] = segments
    if not reviews:
        raise PaperLineError(f"no review under any of {', '.join(MODELS)}")
    pid = f"{DATASET}-{hashlib.sha256(title.encode('utf-8')).hexdigest()[:12]}"
    return {"paper_id": pid, "title": title, "body": obj["body_text"], "decision": _text(obj.get("decision")),
            "reviews": reviews}


def _path(root: Path) -> Path:
    if root.is_dir():
        if not (root / FILE).exists():
            raise ValueError(f"{root} is not a ReviewCritique folder: it has no {FILE}")
        return root / FILE
    if root.suffix.lower() != ".jsonl":
        raise ValueError(f"{root} is not a ReviewCritique folder or JSONL file (give the folder holding {FILE})")
    return root


def import_reviewcritique(log: EventLog, root: Path, mapping: LabelMapping | None = None) -> Imported:
    """Import ReviewCritique's LLM reviews and their experts' labels (the folder, or the JSONL itself).
    ValueError when it is neither; a bad line or segment is set aside by name and the rest go on."""
    root = Path(root)
    path = _path(root)
    imp = LabelImport(log, mapping or load(DATASET))
    if root.is_dir() and not inside(root, path):
        imp.batch.reject(path, f"points outside {root} (a link); refused")
        return imp.commit()
    if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
        imp.batch.reject(path, f"is {path.stat().st_size} bytes, more than ReviewCritique holds "
                               f"({MAX_FILE_BYTES}); refused")
        return imp.commit()
    text = imp.batch.read_utf8(path)
    if text is None:
        return imp.commit()
    versions = latest_versions(log)
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path} line {line_no}"
        with imp.batch.guard(path, where=where, item=f"line {line_no}"):
            try:
                paper = parse_line(line)
            except PaperLineError as exc:
                imp.batch.reject(path, str(exc), where=where, item=f"line {line_no}")
                continue
            _paper(imp, path, paper, versions, where)
            for model, segments in paper["reviews"].items():
                _review(imp, path, paper, model, segments, line_no)
    return imp.commit()


def _paper(imp: LabelImport, path: Path, paper: dict, versions: dict, where: str) -> None:
    """The paper's full text as a manuscript package, once per text (a new text is a new version)."""
    data, pid = paper["body"].encode("utf-8"), paper["paper_id"]
    sha = hashlib.sha256(data).hexdigest()
    latest = versions.get(pid)
    if latest is not None and latest.pdf_sha256 == sha:
        imp.batch.note("unchanged", path, item=pid, paper_id=pid, event=latest)
        return
    try:
        package = text_package(_CONTROL.sub("", paper["body"]), sha, title=paper["title"])
    except ManuscriptError as exc:
        imp.batch.reject(path, f"body_text: {exc}", where=where, paper_id=pid, content_sha256=sha)
        return
    blobs = imp.log.blobs
    blobs.put(data)  # the exact text, under the hash the event names
    event = PaperIngested(
        paper_id=pid, title=package.title, source_uri=path.resolve().as_uri(), pdf_sha256=sha,
        package_sha256=blobs.put_text(package.to_json()), n_pages=0, n_text_records=package.n_text_records,
        n_chars=package.n_chars, venue=None, n_images=0, body_chars=package.part_chars("front", "body"),
        appendix_chars=package.part_chars("appendix"), references_chars=package.part_chars("references"),
        n_references=len(package.references), n_sections=len(package.sections), n_hidden_records=0)
    versions[pid] = event
    imp.batch.emit("new_version" if latest else "ingested", path, event, item=pid, paper_id=pid)


def _review(imp: LabelImport, path: Path, paper: dict, model: str, segments: list[dict], line_no: int) -> None:
    review_id = f"{paper['paper_id']}.{model}"
    review = "\n".join(s["segment_text"] for s in segments)
    review_key = imp.review(path, paper["paper_id"], review_id, review,
                            {"title": paper["title"], "model": model, "decision": paper["decision"]}, line_no)
    offset = 0
    for k, seg in enumerate(segments):
        where = f"{path} line {line_no} {model} segment {k}"
        try:
            labels = segment_labels(seg)
        except PaperLineError as exc:
            imp.batch.reject(path, str(exc), where=where, item=f"{review_id}#{k}", paper_id=paper["paper_id"])
        else:
            imp.label(path, where=where, item_key=f"{review_id}#{k}", review_key=review_key, review_text=review,
                      item_text=seg["segment_text"], start=offset, labels=labels, annotator=None,
                      is_reference=True, paper_id=paper["paper_id"], line_no=line_no)
        offset += len(seg["segment_text"]) + 1
