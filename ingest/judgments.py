"""Judge outputs made elsewhere → `judgment_recorded` events with their provenance, so peerlake's marts
compute PRISM's per-review and per-system figures from PRISM's own released judge answers.

Read today: PRISM's `data_demo/<aspect>/<venue>/<source>/<paper>.json` (its project page)
  depth             reviews_analysis: {"<SYSTEM>_<VENUE>" | "Human_k": [{arg_id, argument, role, aspect,
                    grounding_score}]}                                         → step `units`
  constructiveness  {reviewer_id, status, atomic_comments: [{section, content, anchor_quote,
                    D1_actionability … D5_tone}]}, or {"reviewers": [those]} for humans → step `comments`
  flaws             (data_demo/flaw_identification/<conf>/<llm source>/<paper>.json: one pool, the paper's
                    humans + that system's review) {micro_flaws: {micro_flaws: [{flaw_id, macro_topic,
                    core_summary, raw_arguments: {Human_k | LLM_Reviewer: quote}}]}, evaluations:
                    {evaluations: {Fxx: {is_valid, severity}}}, metrics_report} → one `pool` judgment
                    (subject pool:<paper>|<system>|s0); and, when a Reviewer_Rankings entry of
                    metrics_report.cps carries the mapping's mentions (`arguments`, PRISM's
                    process_single_review_for_cps output; the released files keep only their figures), one
                    `order` judgment per reviewer, each mention placed as PRISM's reorder_by_position
                    places it and grouped by the section PRISM's judge named.
  novelty           (data_demo/novelty_verification/<conf>/<source>/<paper>/task{1,2,3}_result.json: one
                    folder per paper) task3 {aggregated: [{review_sentence_id, text, evidence_results:
                    [{related_paper_id, score, label}], best_evidence}], related_works: [{related_paper_id,
                    text "Title: …"}]}, task1 {review: {novelty_claims: [{claim_id, stance,
                    prior_work_strings}]}} → step `claims`, one row per (claim, candidate). PRISM's verification
                    never has a relevance (task 2 writes none), so s_c is the plain mean of its top 3
                    (best_evidence, else the 3 largest |s_j|): each candidate gets relevance 1 and those 3
                    pool ranks 1-3, which is how int_quality_novelty_claims picks and weighs them. A human
                    folder judged all of a paper's reviews as one text: each claim goes to the review that
                    holds it (PRISM keeps only verbatim claims).
The units get the keys peerlake's own judges write (UNIT_KEYS, checked against judging/ by a test), so
the `int_quality_*` models read them unchanged. A raise's quote is kept whatever it says (PRISM's rule);
ingest may not import judging, so its `verbatim` is "strict" when the quote is the reviewer's words up
to whitespace and case-sensitive, else "unchecked" (the marts' verbatim variant leaves those out).
Labels keep the source's words, lower-cased (PRISM's
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
    ("flaws", "pool"): ("kind", "review_key", "flaw_id", "topic", "summary", "is_valid", "severity", "quote",
                        "verbatim"),
    ("flaws", "order"): ("review_key", "flaw_id", "severity", "position", "located_by", "section",
                         "flaw_verbatim"),
    ("novelty", "claims"): ("claim_index", "claim_text", "stance", "prior_work", "candidate_id", "candidate_title",
                            "candidate_year", "pool_rank", "relevance", "verdict", "reason"),
}
STEPS = {"depth": "units", "constructiveness": "comments", "flaws": "pool", "novelty": "claims"}  # judge → step
# PRISM's aspect folders (data_demo/<aspect>/) → the judge whose answers they hold
ASPECTS = {"depth_of_analysis": "depth", "constructiveness": "constructiveness", "flaw_identification": "flaws",
           "novelty_verification": "novelty"}
FUZZY_MIN_RATIO = 0.45  # PRISM's cps_metrics threshold
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
        hint = f" (PRISM's {judge} folder holds the {ASPECTS[judge]} judge's)" if judge in ASPECTS else ""
        raise ValueError(f"--judge {judge!r}: importable judges are {', '.join(STEPS)}{hint}")
    if not _LABEL.match(label or ""):
        raise ValueError(f"--label {label!r}: use 1-48 lowercase letters, digits or ._- (it names the judge config)")
    root = Path(path)
    top = (root if root.is_dir() else root.parent).resolve()
    known = {e.judgment_key for e in log.iter_events("judgment_recorded")}
    humans = _human_index(log)
    externals = {(e.system, e.review_id): e for e in log.iter_events("external_review_imported")}
    if judge == "flaws":
        return _import_pools(log, root, top, judge_config(judge, label), known, humans, externals)
    if judge == "novelty":
        return _import_novelty(log, root, top, judge_config(judge, label), known, humans, externals)
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


# ---- flaws: one pool per file ------------------------------------------------------------------------

_LLM = re.compile(r"llm|sea", re.I)  # PRISM's _normalize_reviewer_id: any such key is the LLM review


class PoolFileError(ValueError):
    pass


def _import_pools(log: EventLog, root: Path, top: Path, config: str, known: set, humans: dict,
                  externals: dict) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for file in judgment_files(root):
        batch = Batch(log, "judgments")
        with batch.guard(file):
            if not file.resolve().is_relative_to(top):
                batch.reject(file, f"points outside {top} (a link); refused")
            else:
                _pool_file(batch, file, config, known, humans, externals)
        outcomes += batch.commit()
    return outcomes


def _pool_file(batch: Batch, file: Path, config: str, known: set, humans: dict, externals: dict) -> None:
    try:
        doc, sha = _load(file)
        source = _source(file, doc)
        pid = check_paper_id(doc.get("paper_id", file.stem), "paper_id")
    except (JudgmentFileError, PaperIdError) as exc:
        batch.reject(file, str(exc))
        return
    try:
        if source == "human":
            raise PoolFileError("is a human source: PRISM pools its humans with one LLM review, so a flaw file "
                                "belongs in an LLM source's folder (sea, tree, reviewer2, deepreview, cyclereview)")
        flaws, verdicts = _unwrap(doc, "micro_flaws", list), _unwrap(doc, "evaluations", dict)
        system = SYSTEMS[source]
        review = externals.get((system, pid))
        if review is None:
            raise PoolFileError(f"no {system} review of {pid} in the lake; import the data first "
                                "(`peerlake ingest prism DIR`)")
        members = {f"Human_{k}": (f"human:{rid}", text) for (p, k), (rid, text) in sorted(humans.items()) if p == pid}
        if not members:
            raise PoolFileError(f"no PRISM human review of {pid} in the lake; import the data first "
                                "(`peerlake ingest prism DIR`)")
        members["LLM_Reviewer"] = (f"external:{system}:{pid}", _external_text(batch, review))
        units, dropped, valid = pool_units(flaws, verdicts, members)
    except PoolFileError as exc:
        batch.reject(file, str(exc), paper_id=pid)
        return
    pool = f"pool:{pid}|{system}|s0"
    inputs = {"system": system, "sample": "0", "released_by": "prism", "prism_source": source, "file": str(file),
              "sha256": sha, "parser": PARSER, "members": [{"label": label, "review_key": key}
                                                          for label, (key, _) in members.items()],
              "evaluator_model": doc.get("evaluator_model") if isinstance(doc.get("evaluator_model"), str) else None}
    _emit(batch, file, "pool", config, pool, pid, units, dropped, None, inputs, known)
    for who, mentions in _mentions_by_reviewer(doc).items():
        reviewer = _member(who, members)
        if reviewer is None:
            batch.reject(file, f"mentions of {who!r}, who is no member of the pool", where=f"{file} {who}",
                         item=who, paper_id=pid)
            continue
        key, text = members[reviewer]
        rows, order_dropped = order_units(mentions, key, text, valid)
        _emit(batch, file, "order", config, f"{pool}|{key}", pid, rows, order_dropped, None,
              {**inputs, "review_key": key, "pool": pool,
               "source": "human" if key.startswith("human:") else "external"}, known)


def _unwrap(doc: dict, name: str, kind: type):
    """PRISM's step output: {name: {name: value}} as released, or {name: value}."""
    value = doc.get(name)
    if isinstance(value, dict) and name in value:
        value = value[name]
    if not isinstance(value, kind):
        raise PoolFileError(f"has no {name!r} {'list' if kind is list else 'object'} (PRISM's flaw_identification "
                            f"output: {{\"{name}\": {{\"{name}\": ...}}}})")
    return value


def _member(who: str, members: dict) -> str | None:
    """PRISM's reviewer key → the pool member it names (PRISM's own normalisation: llm/sea → LLM_Reviewer)."""
    if who in members:
        return who
    if _LLM.search(who):
        return "LLM_Reviewer"
    m = re.search(r"human[_\s-]*(\d+)", who, re.I)
    return f"Human_{m.group(1)}" if m and f"Human_{m.group(1)}" in members else None


def _flaw_number(value) -> str | None:
    m = re.fullmatch(r"\s*[Ff]?0*(\d+)\s*", str(value))
    return f"F{int(m.group(1))}" if m else None


def pool_units(flaws: list, verdicts: dict, members: dict[str, tuple[str, str]]
               ) -> tuple[list[dict], dict[str, int], dict[str, dict]]:
    """(rows, dropped, the valid flaws by id) of one released pool, in peerlake's `pool` row shape: a member
    row per review (Human_k, then the system's), a raise row per (flaw, reviewer). A raise is kept whatever
    its quote (PRISM's rule); a flaw with no verdict is dropped (`unvalidated`), as peerlake's judge drops it;
    a valid flaw that is neither Critical nor Minor counts as minor (peerlake; PRISM leaves it out)."""
    blank = dict.fromkeys(UNIT_KEYS[("flaws", "pool")])
    rows = [{**blank, "kind": "member", "review_key": key} for key, _ in members.values()]
    dropped: dict[str, int] = {}
    valid: dict[str, dict] = {}

    def drop(why: str) -> None:
        dropped[why] = dropped.get(why, 0) + 1

    by_id = {_flaw_number(k): v for k, v in verdicts.items() if _flaw_number(k)}
    for flaw in flaws:
        fid = _flaw_number(flaw.get("flaw_id")) if isinstance(flaw, dict) else None
        verdict = by_id.get(fid) if fid else None
        if fid is None or not isinstance(flaw.get("raw_arguments"), dict):
            drop("bad_flaw")
            continue
        if not isinstance(verdict, dict) or not isinstance(verdict.get("is_valid"), bool):
            drop("unvalidated")
            continue
        severity = "critical" if verdict.get("severity") == "Critical" else "minor"
        if verdict["is_valid"] and verdict.get("severity") not in ("Critical", "Minor"):
            drop("severity_undecided")  # counted, kept as minor
        raised = []
        for who, quote in flaw["raw_arguments"].items():
            member = _member(str(who), members)
            if member is None:
                drop("unknown_reviewer")
                continue
            key, text = members[member]
            if any(r["review_key"] == key for r in raised):
                drop("duplicate_raise")
                continue
            quote = quote.strip() if isinstance(quote, str) else ""
            strict = bool(quote) and _squash(quote) in _squash(text)
            raised.append({**blank, "kind": "raise", "review_key": key, "flaw_id": fid,
                           "topic": str(flaw.get("macro_topic") or "") or None,
                           "summary": str(flaw.get("core_summary") or "") or None, "is_valid": verdict["is_valid"],
                           "severity": severity, "quote": quote, "verbatim": "strict" if strict else "unchecked"})
        if not raised:
            drop("flaw_without_quote")
            continue
        rows += raised
        if verdict["is_valid"]:
            valid[fid] = {"severity": severity, "verbatim": any(r["verbatim"] == "strict" for r in raised)}
    return rows, dropped, valid


def _mentions_by_reviewer(doc: dict) -> dict[str, list]:
    cps = ((doc.get("metrics_report") or {}).get("cps") or {}) if isinstance(doc.get("metrics_report"), dict) else {}
    rankings = cps.get("Reviewer_Rankings") if isinstance(cps, dict) else None
    return {str(r["Reviewer_ID"]): r["arguments"] for r in rankings or []
            if isinstance(r, dict) and r.get("Reviewer_ID") and isinstance(r.get("arguments"), list)}


def _fuzzy(anchor: str, text: str) -> int | None:
    """PRISM's fuzzy recovery (cps_metrics, spec §3): windows of max(n, 1.6 n) characters every n / 4
    characters from 0, the first best difflib ratio, kept at ≥ 0.45."""
    from difflib import SequenceMatcher

    a, t = anchor.lower(), text.lower()
    win, step = max(len(a), int(len(a) * 1.6)), max(1, len(a) // 4)
    best, where = 0.0, None
    for start in range(0, max(1, len(t) - len(a) + 1), step):
        ratio = SequenceMatcher(None, a, t[start:start + win]).ratio()
        if ratio > best:
            best, where = ratio, start
    return where if best >= FUZZY_MIN_RATIO else None


def order_units(mentions: list, review_key: str, text: str, valid: dict[str, dict]
                ) -> tuple[list[dict], dict[str, int]]:
    """One reviewer's mapped mentions in peerlake's `order` row shape, placed as PRISM's reorder_by_position
    places them: the anchor's first case-insensitive match, else PRISM's fuzzy window, else after everything
    (len(text) + 1, in list order); `section` is the section PRISM's judge named (its grouping for nCPS)."""
    rows, dropped, seen = [], {}, set()
    for m in mentions:
        fid = _flaw_number(m.get("issue_id")) if isinstance(m, dict) else None
        why = "unknown_flaw" if fid not in valid else "duplicate_mention" if fid in seen else None
        if why:
            dropped[why] = dropped.get(why, 0) + 1
            continue
        seen.add(fid)
        anchor = m.get("anchor_quote").strip() if isinstance(m.get("anchor_quote"), str) else ""
        hit = re.search(re.escape(anchor), text, re.I) if anchor else None
        position, how = (hit.start(), "exact") if hit else (None, None)
        if position is None and anchor and (position := _fuzzy(anchor, text)) is not None:
            how = "fuzzy"
        content = m.get("content").strip() if isinstance(m.get("content"), str) else ""
        if position is None and content and (position := _fuzzy(content, text)) is not None:
            how = "fuzzy_content"
        section = m.get("section_name").strip() if isinstance(m.get("section_name"), str) else ""
        rows.append({"review_key": review_key, "flaw_id": fid, "severity": valid[fid]["severity"],
                     "position": position if position is not None else len(text) + 1,
                     "located_by": how or "end", "section": (section or "Weaknesses").lower(),
                     "flaw_verbatim": valid[fid]["verbatim"]})
    return rows, dropped


def _emit(batch: Batch, file: Path, step: str, config: str, subject: str, pid: str, units: list, dropped: dict,
          null: str | None, inputs: dict, known: set) -> None:
    key = hashlib.sha256(json.dumps(["flaws", step, config, subject, 0, inputs["sha256"], PARSER]).encode()).hexdigest()
    if key in known:
        batch.note("skipped", file, item=subject, paper_id=pid, reason=f"{file}: {subject} already imported")
        return
    event = JudgmentRecorded(
        judgment_key=key, judge="flaws", step=step, judge_config=config, subject_key=subject, paper_id=pid,
        repeat=0, status="null" if null else "ok", null_reason=null,
        units_json=json.dumps(units, ensure_ascii=False, separators=(",", ":")),
        dropped_json=json.dumps(dropped, sort_keys=True), llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps(inputs, sort_keys=True, ensure_ascii=False))
    batch.emit("imported", file, event, item=subject, paper_id=pid)
    known.add(key)


# ---- novelty: one folder of task results per paper ------------------------------------------------------

VERDICTS = {2: "SUPPORTED", 1: "OVERSTATED", 0: "AMBIGUOUS", -1: "UNDERSTATED", -2: "UNSUPPORTED"}
TASKS = ("task1_result.json", "task2_result.json", "task3_result.json")


def _paper_folders(root: Path) -> list[Path]:
    """The folders holding PRISM's task results: `root` itself, or every one under it."""
    if not root.is_dir():
        return [root.parent] if root.name in TASKS else [root]
    return sorted({p.parent for name in TASKS for p in root.rglob(name)})


def _import_novelty(log: EventLog, root: Path, top: Path, config: str, known: set, humans: dict,
                    externals: dict) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for folder in _paper_folders(root):
        batch = Batch(log, "judgments")
        task3 = folder / "task3_result.json"
        with batch.guard(task3):
            if not folder.resolve().is_relative_to(top) or (task3.exists() and not task3.resolve().is_relative_to(top)):
                batch.reject(task3, f"points outside {top} (a link); refused")
            else:
                _novelty_folder(batch, folder, config, known, humans, externals)
        outcomes += batch.commit()
    return outcomes


def _novelty_folder(batch: Batch, folder: Path, config: str, known: set, humans: dict, externals: dict) -> None:
    task3 = folder / "task3_result.json"
    try:
        pid = check_paper_id(folder.name, "the paper folder's name")
        if not task3.is_file():
            raise JudgmentFileError("is missing: PRISM's verification (task 3) holds the verdicts a novelty score "
                                    "needs; task 1 and 2 alone score nothing")
        doc, sha = _load(task3)
        source = _source(folder, doc)  # the folder <source>/ holding the paper's folder
        task1 = _load(folder / "task1_result.json")[0] if (folder / "task1_result.json").is_file() else {}
    except (JudgmentFileError, PaperIdError) as exc:
        batch.reject(task3, str(exc))
        return
    if not isinstance(doc.get("aggregated"), list):
        batch.reject(task3, "has no 'aggregated' list (PRISM's task 3 output: one entry per claim with its "
                            "evidence_results)", paper_id=pid)
        return
    claims = [c for c in doc["aggregated"] if isinstance(c, dict) and isinstance(c.get("text"), str)]
    bad = len(doc["aggregated"]) - len(claims)
    if source == "human":
        reviews = [(f"human:{rid}", text) for (p, _), (rid, text) in sorted(humans.items()) if p == pid]
        if not reviews:
            batch.reject(task3, f"no PRISM human review of {pid} in the lake; import the data first "
                                "(`peerlake ingest prism DIR`)", paper_id=pid)
            return
    else:
        system = SYSTEMS[source]
        review = externals.get((system, pid))
        if review is None:
            batch.reject(task3, f"no {system} review of {pid} in the lake; import the data first "
                                "(`peerlake ingest prism DIR`)", paper_id=pid)
            return
        reviews = [(f"external:{system}:{pid}", _external_text(batch, review))]
    owned: dict[str, list] = {key: [] for key, _ in reviews}
    unattributed = 0
    for c in claims:
        key = next((k for k, text in reviews if _squash(c["text"]) in _squash(text)), None)
        if key is None and len(reviews) == 1:
            key = reviews[0][0]  # one review: PRISM's claim is its own (a system's text is all it read)
        if key is None:
            unattributed += 1
            continue
        owned[key].append(c)
    titles = {str(w.get("related_paper_id")): w.get("text") for w in doc.get("related_works") or []
              if isinstance(w, dict)}
    stances = {}
    review_part = task1.get("review") if isinstance(task1, dict) else None
    for c in (review_part or {}).get("novelty_claims") or []:
        if isinstance(c, dict) and c.get("claim_id"):
            stances[str(c["claim_id"])] = c
    for key, mine in owned.items():
        units, dropped = novelty_units(mine, titles, stances)
        if bad:
            dropped["bad_claim"] = bad
        if unattributed:
            dropped["claim_in_no_review"] = unattributed  # PRISM read the reviews joined; counted on each
        system = "human" if key.startswith("human:") else key.split(":")[1]
        inputs = {"source": "human" if source == "human" else "external", "system": system, "fields": [],
                  "released_by": "prism", "prism_source": source, "file": str(task3), "sha256": sha,
                  "parser": PARSER, "evaluator_model": doc.get("evaluator_model")
                  if isinstance(doc.get("evaluator_model"), str) else None}
        jkey = hashlib.sha256(json.dumps(["novelty", "claims", config, key, 0, sha, PARSER]).encode()).hexdigest()
        if jkey in known:
            batch.note("skipped", task3, item=key, paper_id=pid, reason=f"{task3}: {key} already imported")
            continue
        null = None if units else "no_claims"
        event = JudgmentRecorded(
            judgment_key=jkey, judge="novelty", step="claims", judge_config=config, subject_key=key, paper_id=pid,
            repeat=0, status="null" if null else "ok", null_reason=null,
            units_json=json.dumps(units, ensure_ascii=False, separators=(",", ":")),
            dropped_json=json.dumps(dropped, sort_keys=True), llm_call_ids_json="[]", request_keys_json="[]",
            inputs_json=json.dumps(inputs, sort_keys=True, ensure_ascii=False))
        batch.emit("imported", task3, event, item=key, paper_id=pid)
        known.add(jkey)


def _verdict(result: dict) -> str | None:
    label = result.get("label")
    if isinstance(label, str) and label.strip().upper() in VERDICTS.values():
        return label.strip().upper()
    score = result.get("score")  # PRISM: the score is the label's; without a label, its own
    return VERDICTS.get(score) if isinstance(score, int) and not isinstance(score, bool) else None


def novelty_units(claims: list[dict], titles: dict, stances: dict) -> tuple[list[dict], dict[str, int]]:
    """One review's rows in peerlake's `claims` shape: per claim, one row per candidate PRISM verified.
    PRISM's top 3 (best_evidence, else the 3 largest |score| in file order) get pool ranks 1-3 and the
    rest follow; every relevance is the file's relevance_score, or 1 when it has none (PRISM's plain mean)."""
    rows, dropped = [], {}
    for index, c in enumerate(claims):
        claim = stances.get(str(c.get("review_sentence_id")), {})
        stance = claim.get("stance") if isinstance(claim.get("stance"), str) else None
        prior = [p for p in claim.get("prior_work_strings") or [] if isinstance(p, str)]
        base = {"claim_index": index, "claim_text": c["text"].strip(), "stance": stance, "prior_work": prior}
        results = [r for r in c.get("evidence_results") or [] if isinstance(r, dict) and r.get("related_paper_id")]
        if not results:
            rows.append({**base, "candidate_id": None, "candidate_title": None, "candidate_year": None,
                         "pool_rank": None, "relevance": None, "verdict": None, "reason": "no_candidates"})
            continue
        best = [str(b) for b in c.get("best_evidence") or []]
        if not best:
            scored = [r for r in results if _verdict(r)]
            best = [str(r["related_paper_id"]) for r in sorted(
                scored, key=lambda r: -abs(next(k for k, v in VERDICTS.items() if v == _verdict(r))))[:3]]
        order = best + [str(r["related_paper_id"]) for r in results if str(r["related_paper_id"]) not in best]
        for r in results:
            cid = str(r["related_paper_id"])
            relevance = r.get("relevance_score")
            number = isinstance(relevance, int | float) and not isinstance(relevance, bool) and math.isfinite(relevance)
            title = titles.get(cid)
            title = title.split("\n", 1)[0].removeprefix("Title:").strip() if isinstance(title, str) else None
            verdict = _verdict(r)
            if verdict is None:
                dropped["verdict_unparseable"] = dropped.get("verdict_unparseable", 0) + 1
            rows.append({**base, "candidate_id": cid, "candidate_title": title or None, "candidate_year": None,
                         "pool_rank": order.index(cid) + 1, "relevance": float(relevance) if number else 1.0,
                         "verdict": verdict, "reason": None if verdict else "verdict_unparseable"})
    return rows, dropped
