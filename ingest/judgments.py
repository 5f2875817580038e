"""Judge outputs made elsewhere → `judgment_recorded` events with their provenance, so peerlake's marts
compute PRISM's per-review and per-system figures from PRISM's own released judge answers.

Read today: PRISM's `data_demo/<aspect>/<venue>/<source>/<paper>.json` (its project page)
  depth             reviews_analysis: {"<SYSTEM>_<VENUE>" | "Human_k": [{arg_id, argument, role, aspect,
                    grounding_score}]}                                         → step `units`
  constructiveness  {reviewer_id, status, atomic_comments: [{section, content, anchor_quote,
                    D1_actionability … D5_tone}]}, or {"reviewers": [those]} for humans → step `comments`
The units get the keys peerlake's own judges write (UNIT_KEYS, checked against judging/ by a test), so
the `int_quality_*` models read them unchanged. Labels keep the source's words, lower-cased (PRISM's
released depth answers use roles claim/premise/rebuttal/backing, aspects methodology/experiments/
novelty/theory/presentation/other and grounding 0–3): what a mart does with them is the mart's business.

The subject is the review the lake already holds (`peerlake ingest prism` first): a system's review
`external:<system>:<paper>`, PRISM's `Human_k` the k-th review of the paper's human_reviews file. The
judge config is `<label>:<judge>` (default label `prism-released`), the repeat 0, and `inputs_json`
names the file, its SHA-256, the source and the evaluator model. No llm_call backs these judgments:
`llm_call_ids_json` is empty, and the provenance is the file.
"""

import hashlib
import json
import math
import re
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.ingest.prism_reviews import SYSTEMS
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import JudgmentRecorded
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

PARSER = "prism-released-1"
DEFAULT_LABEL = "prism-released"
MAX_FILE_BYTES = 20_000_000  # the released files are < 100 kB; refuse a hostile one before reading it
# The unit keys of peerlake's own judges, per (judge, step): the contract the dbt quality models read
# (judging/README.md). Copied as data because ingest may not import judging; a test compares them.
UNIT_KEYS = {
    ("depth", "units"): ("unit_index", "text", "start", "field", "role", "aspect", "grounding"),
    ("constructiveness", "comments"): ("comment_index", "text", "section", "anchor_quote", "anchor_found",
                                       "actionability", "specificity", "justification", "solution", "tone"),
}
STEPS = dict(UNIT_KEYS.keys())  # judge → the step its units are recorded under
# PRISM's ratings D1..D5 → peerlake's constructiveness dimensions
DIMENSIONS = (("D1_actionability", "actionability"), ("D2_specificity", "specificity"),
              ("D3_justification", "justification"), ("D4_solution", "solution"), ("D5_tone", "tone"))
STATUSES = ("imported", "skipped", "ignored", "rejected")
_LABEL = re.compile(r"^[a-z0-9][a-z0-9._-]{0,47}$")
_HUMAN = re.compile(r"^Human_(\d+)$")


class JudgmentFileError(ValueError):
    pass


def judge_config(judge: str, label: str = DEFAULT_LABEL) -> str:
    return f"{label}:{judge}"


def judgment_files(path: Path) -> list[Path]:
    """The file given, or every *.json under a folder (sorted; PRISM's MANIFEST.json left out)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    return sorted(p for p in path.rglob("*.json") if p.name != "MANIFEST.json")


def import_judgments(log: EventLog, path: Path, judge: str, label: str = DEFAULT_LABEL) -> list[Outcome]:
    """Import one file or a folder of PRISM judge outputs for `judge`; never raises for bad input."""
    if judge not in STEPS:
        raise ValueError(f"--judge {judge!r}: importable judges are {', '.join(STEPS)}")
    if not _LABEL.match(label or ""):
        raise ValueError(f"--label {label!r}: use 1-48 lowercase letters, digits or ._- (it names the judge config)")
    root = Path(path)
    top = (root if root.is_dir() else root.parent).resolve()
    known = {e.judgment_key for e in log.iter_events("judgment_recorded")}
    humans = _human_index(log)
    externals = {(e.system, e.review_id): e for e in log.iter_events("external_review_imported")}
    outcomes: list[Outcome] = []
    for file in judgment_files(root):
        batch = Batch(log, "judgments")
        with batch.guard(file):
            if not file.resolve().is_relative_to(top):
                batch.reject(file, f"points outside {top} (a link); refused")
            else:
                _file(batch, file, judge, judge_config(judge, label), known, humans, externals)
        outcomes += batch.commit()
    return outcomes


def _human_index(log: EventLog) -> dict[tuple[str, int], tuple[str, str]]:
    """(paper id, PRISM's 1-based place of the review) → (review id, the review's text)."""
    out = {}
    for e in log.iter_events("human_review_imported"):
        if e.source != "prism":
            continue
        try:
            body = json.loads(log.blobs.get_text(e.body_sha256))
        except (OSError, ValueError):
            continue
        if isinstance(body, dict) and isinstance(body.get("prism_index"), int):
            text = "\n".join(v for v in (body.get("content") or {}).values() if isinstance(v, str))
            out[(e.paper_id, body["prism_index"])] = (e.review_id, text)
    return out


def _load(file: Path) -> tuple[dict, str]:
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise JudgmentFileError(f"is {file.stat().st_size} bytes, more than a judge output holds; refused")
        data = file.read_bytes()
        doc = json.loads(data.decode("utf-8"))
    except OSError as exc:
        raise JudgmentFileError(f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise JudgmentFileError(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise JudgmentFileError(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise JudgmentFileError(TOO_DEEP) from None
    if not isinstance(doc, dict):
        raise JudgmentFileError(f"top level is a {type(doc).__name__}, not an object")
    return doc, sha256_hex(data)


def _source(file: Path, doc: dict) -> str:
    """PRISM's source name (human, sea, tree, …): the folder `<source>/` the file sits in, else the
    file's own `source` ("sea_iclr2025")."""
    names = {"human", *SYSTEMS}
    if file.parent.name.lower() in names:
        return file.parent.name.lower()
    declared = str(doc.get("source") or "").split("_", 1)[0].lower()
    if declared in names:
        return declared
    raise JudgmentFileError(f"names no PRISM source (a folder or 'source' among {', '.join(sorted(names))})")


def _file(batch: Batch, file: Path, judge: str, config: str, known: set, humans: dict, externals: dict) -> None:
    try:
        doc, sha = _load(file)
        source = _source(file, doc)
        pid = check_paper_id(doc.get("paper_id", file.stem), "paper_id")
    except (JudgmentFileError, PaperIdError) as exc:
        batch.reject(file, str(exc))
        return
    if judge == "depth" and not isinstance(doc.get("reviews_analysis"), dict):
        batch.reject(file, "has no 'reviews_analysis' object (PRISM's depth output)", paper_id=pid)
        return
    if judge == "constructiveness" and not isinstance(doc.get("reviewers"), list) and "atomic_comments" not in doc:
        batch.reject(file, "has neither 'atomic_comments' nor 'reviewers' (PRISM's constructiveness output)",
                     paper_id=pid)
        return
    for label, answer in _answers(doc, judge):
        where, item = f"{file} {label}", label
        if source == "human":
            m = _HUMAN.match(label)
            found = humans.get((pid, int(m.group(1)))) if m else None
            if found is None:
                batch.reject(file, f"no PRISM human review #{m.group(1) if m else label} of {pid} in the lake; "
                                   "import the data first (`peerlake ingest prism DIR`)", where=where, item=item,
                             paper_id=pid)
                continue
            subject, system, text = f"human:{found[0]}", "human", found[1]
        else:
            system = SYSTEMS[source]
            review = externals.get((system, pid))
            if review is None:
                batch.reject(file, f"no {system} review of {pid} in the lake; import the data first "
                                   "(`peerlake ingest prism DIR`)", where=where, item=item, paper_id=pid)
                continue
            subject, text = f"external:{system}:{pid}", _external_text(batch, review)
        with batch.guard(file, where=where, item=item, paper_id=pid):
            _record(batch, file, sha, judge, config, subject, pid, source, system, text, doc, answer, known)


def _answers(doc: dict, judge: str) -> list[tuple[str, object]]:
    """(reviewer label, that reviewer's answer) pairs of one file."""
    if judge == "depth":
        return sorted(doc["reviews_analysis"].items())
    reviewers = doc.get("reviewers") if isinstance(doc.get("reviewers"), list) else [doc]
    return [(str(r.get("reviewer_id") or f"reviewer #{i}") if isinstance(r, dict) else f"reviewer #{i}", r)
            for i, r in enumerate(reviewers, start=1)]


def _external_text(batch: Batch, review) -> str:
    try:
        return str(json.loads(batch.log.blobs.get_text(review.body_sha256)).get("text") or "")
    except (OSError, ValueError, AttributeError):
        return ""


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


GROUNDING_MAX = 2  # the grounding scale of both shipped depth taxonomies and of PRISM's S = mean / 2


def depth_units(answer) -> tuple[list[dict], dict[str, int], str | None]:
    """(units, dropped, null reason) of one reviewer's released depth analysis."""
    if not isinstance(answer, list):
        return [], {}, "unparseable:units"
    units, dropped = [], {}
    for arg in answer:
        grounding = arg.get("grounding_score") if isinstance(arg, dict) else None
        if not isinstance(arg, dict) or not isinstance(arg.get("argument"), str) or not arg["argument"].strip() \
                or not isinstance(arg.get("role"), str) or isinstance(grounding, bool) \
                or not (grounding is None or isinstance(grounding, int)):
            dropped["bad_unit"] = dropped.get("bad_unit", 0) + 1
            continue
        if grounding is not None and not 0 <= grounding <= GROUNDING_MAX:
            # PRISM's released human answers grade 0-3, its formula (S / 2) and peerlake's marts 0-2: a 3
            # would put S_norm above 1 and fail the quality gate. Kept as PRISM keeps an unmatched premise:
            # null (it counts in R, not in S), and counted.
            dropped["grounding_outside_0_2"] = dropped.get("grounding_outside_0_2", 0) + 1
            grounding = None
        aspect = arg.get("aspect")
        units.append({"unit_index": len(units), "text": arg["argument"].strip(), "start": None, "field": None,
                      "role": arg["role"].strip().lower(),
                      "aspect": aspect.strip().lower() if isinstance(aspect, str) and aspect.strip() else None,
                      "grounding": grounding})
    return units, dropped, None if units else "no_units"


def constructiveness_units(answer, review_text: str) -> tuple[list[dict], dict[str, int], str | None]:
    """(units, dropped, null reason) of one reviewer's released atomic comments."""
    if not isinstance(answer, dict):
        return [], {}, "unparseable:comments"
    if answer.get("status") not in (None, "success"):
        return [], {}, f"released_status:{str(answer['status'])[:40]}"
    comments = answer.get("atomic_comments")
    if not isinstance(comments, list):
        return [], {}, "unparseable:comments"
    units, dropped, haystack = [], {}, _squash(review_text)
    for index, c in enumerate(comments):
        if not isinstance(c, dict) or not isinstance(c.get("content"), str) or not c["content"].strip():
            dropped["bad_comment"] = dropped.get("bad_comment", 0) + 1
            continue
        # PRISM's own parse (constructiveness/src/evaluator.py): clamp(round(x), 0, 2), a non-number 0.
        # The released files were written after it, so this only matters for outputs made elsewhere.
        clamped = {}
        for key, name in DIMENSIONS:
            v = c.get(key)
            number = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            clamped[name] = min(2, max(0, round(v))) if number else 0
            if not number:
                dropped["non_numeric_rating"] = dropped.get("non_numeric_rating", 0) + 1  # counted as 0
            elif clamped[name] != v:
                dropped["clamped"] = dropped.get("clamped", 0) + 1  # counted, not dropped
        anchor = c.get("anchor_quote").strip() if isinstance(c.get("anchor_quote"), str) else None
        section = c.get("section").strip() if isinstance(c.get("section"), str) else None
        units.append({"comment_index": index, "text": c["content"].strip(), "section": section or None,
                      "anchor_quote": anchor or None,
                      "anchor_found": bool(anchor) and bool(haystack) and _squash(anchor) in haystack,
                      **clamped})
    return units, dropped, None if units else "no_comments"


def _record(batch: Batch, file: Path, sha: str, judge: str, config: str, subject: str, pid: str, source: str,
            system: str, text: str, doc: dict, answer, known: set) -> None:
    step = STEPS[judge]
    if judge == "depth":
        units, dropped, null = depth_units(answer)
    else:
        units, dropped, null = constructiveness_units(answer, text)
    key = hashlib.sha256(json.dumps([judge, step, config, subject, 0, sha, PARSER]).encode()).hexdigest()
    if key in known:
        batch.note("skipped", file, item=subject, paper_id=pid, reason=f"{file}: {subject} already imported")
        return
    inputs = {"source": "human" if source == "human" else "external", "system": system, "fields": [],
              "chars": len(text), "text_sha256": sha256_hex(text.encode()) if text else None,
              "released_by": "prism", "prism_source": source, "file": str(file), "sha256": sha,
              "evaluator_model": doc.get("evaluator_model") if isinstance(doc.get("evaluator_model"), str) else None,
              "parser": PARSER}
    event = JudgmentRecorded(
        judgment_key=key, judge=judge, step=step, judge_config=config, subject_key=subject, paper_id=pid,
        repeat=0, status="null" if null else "ok", null_reason=null,
        units_json=json.dumps(units, ensure_ascii=False, separators=(",", ":")),
        dropped_json=json.dumps(dropped, sort_keys=True), llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps(inputs, sort_keys=True, ensure_ascii=False))
    batch.emit("imported", file, event, item=subject, paper_id=pid)
    known.add(key)
