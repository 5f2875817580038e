"""The crossover's manuscript side, paper by paper: feedback review → Writer → candidate diffs →
Selector(s) → validators → final manuscript ("Can We Believe AI Peer Review?"). The Scorer side is `scoring_requests`.

Calls go through the gateway in phases (all feedback reviews, then all Writers, then all Selectors)
so each phase has one progress bar, and a replayed run answers every call from the log. A failed
call or a refused answer blocks that paper's condition with the reason; the others go on.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from peerlake.ingest.manuscripts import load_package
from peerlake.ingest.package import ManuscriptPackage
from peerlake.ingest.variants import record_variant, recorded_variants, variant_key, variant_paper_id
from peerlake.reviewing.revision.manuscript import (
    Diff,
    Edit,
    diffs_of,
    editable_records,
    final_package,
    package_sha,
    protected_ids,
    structural_checks,
)
from peerlake.reviewing.revision.roles import (
    RoleAnswerError,
    parse_decisions,
    parse_edits,
    review_as_text,
    selector_request,
    writer_request,
)
from peerlake.reviewing.revision.seeds import in_own_sessions
from peerlake.reviewing.revision.spec import RevisionSpec
from peerlake.reviewing.scoring import package_review_requests
from peerlake.warehouse import EventLog, PaperIngested
from peerlake.warehouse.blobs import BlobCorrupted
from peerlake.warehouse.events import RevisionOutcomeRecorded

# A final manuscript's variant identity: its content (package hash) under this kind and config, so
# identical finals of two conditions are one paper.
FINAL_KIND, FINAL_CONFIG = "revision", "revision-v1"
# A failed structural check → the blocked reason the marts count ("Can We Believe AI Peer Review?"'s checks).
CHECK_REASONS = {"image_hashes": "image_hash_mismatch", "image_index": "image_index_changed",
                 "protected_text": "protected_record_changed", "record_order": "record_order_changed",
                 "non_text_fields": "non_text_field_changed", "only_accepted_changed": "unaccepted_text_changed",
                 "package_fields": "package_field_changed"}


@dataclass
class PaperWork:
    """One paper's state through the phases."""

    paper: PaperIngested
    package: ManuscriptPackage
    editable: list  # the records the Writer sees and may replace (editable_records), computed once
    feedback: dict = field(default_factory=dict)  # writer letter -> (request key, text) | error
    candidates: dict = field(default_factory=dict)  # writer letter -> (writer key, [Diff]) | RoleAnswerError
    decisions: dict = field(default_factory=dict)  # (writer, selector) -> (selector key, [decision]) | error


def _result(outcome):
    return None if isinstance(outcome, BaseException) else outcome


def _work(log: EventLog, papers: list[PaperIngested], spec: RevisionSpec) -> list[PaperWork]:
    out = []
    for p in papers:
        package = load_package(log.blobs, p.package_sha256)
        out.append(PaperWork(p, package, editable_records(package, spec.editable_kinds, spec.manuscript_chars)))
    return out


def revise(log: EventLog, call_many: Callable, papers: list[PaperIngested], spec: RevisionSpec,
           study: str) -> list[RevisionOutcomeRecorded]:
    """Every (paper, condition) outcome of the study's cells, recorded (new ones appended) and returned.
    `call_many(requests, description)` returns results or exceptions in order (the gateway's)."""
    work = _work(log, papers, spec)
    _feedback_phase(work, call_many, spec)
    _writer_phase(work, call_many, spec)
    _selector_phase(work, call_many, spec)
    known = recorded_variants(log)
    have = {e.outcome_key: e for e in log.iter_events("revision_outcome")}
    return [_outcome(log, w, writer, selector, spec, study, known, have)
            for w in work for writer, selector in spec.conditions]


def feedback_request(w: PaperWork, spec: RevisionSpec, writer: str):
    """The Writer's feedback: the first standard scoring review of the original by the feedback model
    (the Writer's own by default): the same request as that model's Scorer sample 0, so it replays."""
    cfg = spec.scorer_config(spec.feedback_letter(writer))
    return package_review_requests(w.paper.paper_id, w.paper.title, w.package, cfg)[0]


def _feedback_phase(work, call_many, spec):
    reqs = [(w, writer, feedback_request(w, spec, writer)) for w in work for writer in spec.writers]
    for (w, writer, req), out in zip(reqs, call_many([r for *_, r in reqs], "revision: feedback reviews"),
                                     strict=True):
        res = _result(out)
        w.feedback[writer] = (req.request_key, review_as_text(res.json_object(), res.text)) if res else \
            (req.request_key, RoleAnswerError("feedback_failed", str(out)))


def _writer_phase(work, call_many, spec):
    reqs = []
    for w in work:
        editable = w.editable
        for writer in spec.writers:
            _key, text = w.feedback[writer]
            if isinstance(text, RoleAnswerError):
                w.candidates[writer] = (None, text)
            elif not editable:
                w.candidates[writer] = (None, RoleAnswerError("no_editable_records", "nothing the Writer may edit"))
            else:
                reqs.append((w, writer, editable, writer_request(
                    w.paper.paper_id, w.paper.title, editable, text, spec.model(writer), spec)))
    for (w, writer, editable, req), out in zip(reqs, call_many([r[-1] for r in reqs], "revision: Writers"),
                                               strict=True):
        res = _result(out)
        if res is None:
            w.candidates[writer] = (req.request_key, RoleAnswerError("writer_failed", str(out)))
            continue
        try:
            edits = parse_edits(res.json_object(), {r.id for r in editable}, {r.id for r in w.package.records},
                                spec.max_edits)
            w.candidates[writer] = (req.request_key, diffs_of(w.package, edits))
        except RoleAnswerError as exc:
            w.candidates[writer] = (req.request_key, exc)


def _seen_text(w: PaperWork) -> str:
    """The original as the Writer saw it: what the Selector reads beside the diffs."""
    return "\n".join(r.text for r in w.editable)


def _selector_phase(work, call_many, spec):
    reqs = []
    for w in work:
        for writer, selector in spec.conditions:
            _key, diffs = w.candidates[writer]
            if isinstance(diffs, list) and diffs:
                reqs.append((w, writer, selector, diffs, selector_request(
                    w.paper.paper_id, w.paper.title, _seen_text(w), diffs, spec.model(selector), spec, writer)))
    for (w, writer, selector, diffs, req), out in zip(reqs, call_many([r[-1] for r in reqs], "revision: Selectors"),
                                                      strict=True):
        res = _result(out)
        if res is None:
            w.decisions[(writer, selector)] = (req.request_key, RoleAnswerError("selector_failed", str(out)))
            continue
        try:
            w.decisions[(writer, selector)] = (req.request_key,
                                               parse_decisions(res.json_object(), diffs, spec.reason_chars))
        except RoleAnswerError as exc:
            w.decisions[(writer, selector)] = (req.request_key, exc)


def _image_ok(log: EventLog) -> Callable[[str], bool]:
    def ok(sha: str) -> bool:
        try:
            log.blobs.get(sha)  # re-hashes the stored bytes
            return True
        except (BlobCorrupted, FileNotFoundError, OSError):
            return False
    return ok


def _outcome(log: EventLog, w: PaperWork, writer: str, selector: str, spec: RevisionSpec, study: str,
             known: dict, have: dict) -> RevisionOutcomeRecorded:
    feedback_key, _ = w.feedback[writer]
    writer_key, diffs = w.candidates[writer]
    selector_key, decisions = w.decisions.get((writer, selector), (None, []))
    ident = {"study": study, "spec": spec.identity, "paper": w.paper.paper_id, "package": w.paper.package_sha256,
             "writer": writer, "selector": selector, "keys": [feedback_key, writer_key, selector_key]}
    outcome_key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
    if outcome_key in have:
        return have[outcome_key]
    error = diffs if isinstance(diffs, RoleAnswerError) else decisions if isinstance(decisions, RoleAnswerError) \
        else None
    diffs = diffs if isinstance(diffs, list) else []
    decisions = decisions if isinstance(decisions, list) else []
    accepted = {d["diff_id"] for d in decisions if d["accept"]}
    checks: dict = {}
    final_id = None
    if error is not None:
        checks[error.reason] = {"passed": False, "detail": error.detail[:500]}
    else:
        final = final_package(w.package, diffs, accepted)
        changed = {d.record_id for d in diffs if d.diff_id in accepted}
        checks = structural_checks(w.package, final, changed, protected_ids(w.package, w.editable), _image_ok(log))
        failed = [name for name, c in checks.items() if not c["passed"]]
        if failed:
            error = RoleAnswerError(CHECK_REASONS.get(failed[0], failed[0]), checks[failed[0]]["detail"])
        elif not changed and spec.unchanged_final == "zero_noise":
            final_id = w.paper.paper_id  # nothing accepted: the final is the original, read by its scores
        else:  # a revision, or (rescore) the unchanged final as a version of its own, scored in new sessions
            variant, _new = record_variant(
                log, w.paper, kind=FINAL_KIND, experiment_config=FINAL_CONFIG,
                details={"package_sha256": package_sha(final)}, pdf_bytes=None, package=final, study=study,
                known=known)
            final_id = variant.variant_id if variant.built else None
            if final_id is None:
                error = RoleAnswerError("final_not_recorded", variant.reason or "")
    event = RevisionOutcomeRecorded(
        outcome_key=outcome_key, study_id=study, spec_id=spec.identity, paper_id=w.paper.paper_id, writer=writer,
        selector=selector, writer_model=spec.model(writer).label, selector_model=spec.model(selector).label,
        status="blocked" if error is not None else "ok", blocked_reason=error.reason if error is not None else None,
        n_candidates=len(diffs), n_accepted=len(accepted),
        n_reasons_truncated=sum(d["reason_truncated"] for d in decisions),
        diffs_json=json.dumps([_diff_row(d, decisions) for d in diffs], ensure_ascii=False),
        checks_json=json.dumps(checks, sort_keys=True, ensure_ascii=False),
        n_image_entries=len(w.package.images),
        n_images_rehashed=0 if "image_hashes" not in checks else len(w.package.images),
        final_paper_id=final_id if error is None else None, feedback_request_key=feedback_key,
        writer_request_key=writer_key, selector_request_key=selector_key)
    log.append(event)
    have[outcome_key] = event
    return event


def _diff_row(d: Diff, decisions: list[dict]) -> dict:
    dec = next((x for x in decisions if x["diff_id"] == d.diff_id), None)
    return {"diff_id": d.diff_id, "record_id": d.record_id, "page": d.page, "original": d.original,
            "revised": d.revised, "accepted": bool(dec and dec["accept"]),
            "reason": dec["reason"] if dec else None, "reason_truncated": bool(dec and dec["reason_truncated"])}


def scorer_requests(paper_id: str, title: str | None, package, spec: RevisionSpec, letter: str, *,
                    final: bool) -> list:
    """One Scorer's `repeats` standard reviews of one manuscript. A final's are sent in sessions of their
    own (reviewing.revision.seeds): never with the seeds of its original's reviews."""
    reqs = package_review_requests(paper_id, title, package, spec.scorer_config(letter))
    return in_own_sessions(reqs, paper_id) if final else reqs


def scoring_requests(log: EventLog, spec: RevisionSpec, originals: list[PaperIngested],
                     outcomes: list[RevisionOutcomeRecorded], papers_by_id: dict[str, PaperIngested]) -> list:
    """Every Scorer request the cells need: each Scorer's `repeats` standard reviews of every original
    (reused by all its cells) and of every final manuscript its cells score (a final that is the
    original, under unchanged_final = zero_noise, reuses the original's). Blind: the standard review of
    the final package, nothing more."""
    scorers: dict[str, set[str]] = {p.paper_id: set(spec.scorers) for p in originals}  # paper -> Scorer letters
    for o in outcomes:
        if o.status == "ok" and o.final_paper_id in papers_by_id:
            scorers.setdefault(o.final_paper_id, set()).update(
                c[2] for c in spec.cells if c[:2] == o.writer + o.selector)
    reqs: dict[str, object] = {}
    original_ids = {p.paper_id for p in originals}
    for paper_id, letters in scorers.items():
        paper = papers_by_id.get(paper_id) or next(p for p in originals if p.paper_id == paper_id)
        pkg = load_package(log.blobs, paper.package_sha256)  # once per manuscript, whatever the Scorers
        for letter in sorted(letters):
            for req in scorer_requests(paper.paper_id, paper.title, pkg, spec, letter,
                                       final=paper_id not in original_ids):
                reqs.setdefault(req.request_key, req)
    return list(reqs.values())


# ---- planning (a dry run) --------------------------------------------------------------------------

NOT_IN_LOG = "not in the log yet"
STANDIN_REVIEW_CHARS = 3000  # a feedback review not written yet, as the Writer would read it


class NotInLog(Exception):
    def __init__(self):
        super().__init__(NOT_IN_LOG)


def _missing(error) -> bool:
    return isinstance(error, RoleAnswerError) and error.detail == NOT_IN_LOG


def final_paper_id(base: PaperIngested, final: ManuscriptPackage) -> str:
    """The id `_outcome` gives a final manuscript (its content decides it)."""
    key = variant_key(FINAL_KIND, base.package_sha256, FINAL_CONFIG, {"package_sha256": package_sha(final)})
    return variant_paper_id(base.paper_id, FINAL_KIND, key)


def planned_requests(log: EventLog, logged: Callable, papers: list[PaperIngested],
                     spec: RevisionSpec) -> tuple[list, list]:
    """(exact, stand-ins): every request a run would make now. A request is exact when every answer it
    depends on is in the log (`logged(req)` returns it or None): a replayed run makes exactly these.
    A step whose inputs are not made yet gets a stand-in of the same shape (a placeholder feedback
    review, the editable records as unchanged diffs, the original read as the final): sized like
    the real call, never in the log, at most one per call the run could make."""
    asked: list = []

    def dry(requests, _description):
        asked.extend(requests)
        return [logged(r) or NotInLog() for r in requests]

    work = _work(log, papers, spec)
    _feedback_phase(work, dry, spec)
    _writer_phase(work, dry, spec)
    _selector_phase(work, dry, spec)
    standins: list = []
    stood_in: set = set()
    for w in work:
        editable = w.editable
        for letter in spec.scorers:
            asked += scorer_requests(w.paper.paper_id, w.paper.title, w.package, spec, letter, final=False)
        for writer, selector in spec.conditions:
            _k, diffs = w.candidates[writer]
            _s, decisions = w.decisions.get((writer, selector), (None, None))
            if isinstance(diffs, list) and not diffs:
                decisions = []  # the Writer proposed nothing: no Selector call, the final is the original
            if isinstance(decisions, list):
                accepted = {d["diff_id"] for d in decisions if d["accept"]}
                final = final_package(w.package, diffs, accepted)
                if accepted or spec.unchanged_final == "rescore":
                    fid = final_paper_id(w.paper, final)
                    asked += [r for c in spec.cells if c[:2] == writer + selector
                              for r in scorer_requests(fid, final.title or w.paper.title, final, spec, c[2],
                                                       final=True)]
                continue
            # the Writer's answer (or the feedback it reads) not made yet: its diffs are unknown
            unknown_diffs = _missing(diffs)
            if not (unknown_diffs or _missing(decisions)) or not editable:
                continue  # refused, blocked or nothing to edit: no further call
            if _missing(w.feedback[writer][1]) and (w.paper.paper_id, writer) not in stood_in:
                stood_in.add((w.paper.paper_id, writer))
                standins.append(writer_request(w.paper.paper_id, w.paper.title, editable, "x" * STANDIN_REVIEW_CHARS,
                                               spec.model(writer), spec))
            if unknown_diffs:
                pseudo = diffs_of(w.package, [Edit(r.id, r.text + " (revised)") for r in editable[:spec.max_edits]])
                standins.append(selector_request(w.paper.paper_id, w.paper.title, _seen_text(w), pseudo,
                                                 spec.model(selector), spec, writer))
            standins += [r for c in spec.cells if c[:2] == writer + selector
                         for r in scorer_requests(f"{w.paper.paper_id}~revision-planned", w.paper.title,
                                                  w.package, spec, c[2], final=True)]
    exact = list({r.request_key: r for r in asked}.values())
    return exact, standins
