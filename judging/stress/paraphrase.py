"""The one stress edit a model makes: a paraphrase of every body section (or the first N) that keeps every number,
reference and claim. Per section one rewrite call (step `paraphrase`, the section's paragraphs in, the
same count out); then two checks, either refusing the variant with its reason:
  - deterministic: the multiset of numbers and citation markers of each section unchanged
    (`paraphrase_changed_numbers: 3.2, 41`: the ones lost or added);
  - a validation call per section (step `validate`): the rewrite keeps every claim and adds none
    (`paraphrase_validation_failed: <section>`); only made when the deterministic check passed.
A call that failed is not an answer: the paper's paraphrase is not recorded, so the next run retries it.
"""

import dataclasses
import json
from dataclasses import dataclass, field

from peerlake.ingest.package import ManuscriptPackage
from peerlake.ingest.stress import Edited
from peerlake.ingest.stress.presentation import Section, apply_paraphrase, paraphrase_difference, paraphrase_sections
from peerlake.ingest.stress.records import check
from peerlake.judging.base import JudgeContext, answer, budgeted, judge_request
from peerlake.judging.stress.spec import JUDGE

LENGTH_FACTOR = 1.5  # a rewrite may run to 1.5 x its paragraph + 80 characters, as the contradiction rewrite
LENGTH_SLACK = 80
CHARS_PER_TOKEN = 3


@dataclass
class Job:
    """One paper's paraphrase: its sections, the calls' keys, and what became of it."""

    paper_id: str
    package: ManuscriptPackage
    sections: list[Section]
    skipped: list[str] = field(default_factory=list)  # sections too long for the model's answer
    rewrites: list[list[str]] = field(default_factory=list)
    request_keys: list[str] = field(default_factory=list)
    failed_call: str | None = None
    result: Edited | None = None


def _limit(provider: str) -> int | None:
    """The longest paragraph a rewrite may take on this provider: the embedded model's grammar bounds a
    string (llm_calls.providers.local.GRAMMAR_MAX_STRING), so an answer cut by it would not look cut."""
    if provider != "local":
        return None
    from peerlake.llm_calls.providers.local import GRAMMAR_MAX_STRING

    return int((GRAMMAR_MAX_STRING - LENGTH_SLACK) / LENGTH_FACTOR)


def jobs(ctx: JudgeContext, papers: list[tuple[str, ManuscriptPackage]], max_sections: int | None) -> list[Job]:
    """max_sections None: every body section the model can take."""
    limit = _limit(ctx.cfg.provider)
    out = []
    for paper_id, package in papers:
        every = paraphrase_sections(package, 10**6)
        fits = [s for s in every if limit is None or max(len(r.text) for r in s.records) <= limit]
        job = Job(paper_id, package, fits[:max_sections], skipped=[s.name for s in every if s not in fits])
        if not job.sections:
            job.result = Edited(None, reason="paraphrase_paragraphs_too_long" if every else "no_body_text",
                                params={"sections_skipped": job.skipped})
        out.append(job)
    return out


def _max_len(section: Section) -> int:
    return int(max(len(r.text) for r in section.records) * LENGTH_FACTOR) + LENGTH_SLACK


def rewrite(ctx: JudgeContext, todo: list[Job]) -> None:
    """One call per section of every job; fills `rewrites`, or the reason, or failed_call."""
    reqs, where = [], []
    for job in todo:
        for i, s in enumerate(job.sections):
            need = sum(len(r.text) for r in s.records) * LENGTH_FACTOR // CHARS_PER_TOKEN + 40 * len(s.records)
            cfg, tokens = budgeted(ctx.cfg, int(need))
            req = judge_request(cfg, JUDGE, "paraphrase", "stress_paraphrase", subject_id=f"stress:{job.paper_id}:{i}",
                                max_tokens=tokens, section=s.name, paragraphs=[r.text for r in s.records],
                                n=len(s.records))
            schema = json.loads(json.dumps(req.response_schema))
            arr = schema["properties"]["paragraphs"]
            arr["minItems"] = arr["maxItems"] = len(s.records)
            arr["items"]["maxLength"] = _max_len(s)
            reqs.append(dataclasses.replace(req, response_schema=schema))
            where.append((job, i))
    answers: dict[int, dict[int, object]] = {}
    for (job, i), res in zip(where, ctx.call_many(reqs, "stress: paraphrase"), strict=True):
        if isinstance(res, BaseException):
            job.failed_call = f"{type(res).__name__}: {res}"
            continue
        job.request_keys.append(res.request_key)
        answers.setdefault(id(job), {})[i] = answer(res)
    for job in todo:
        if job.failed_call is not None:
            continue
        for i, s in enumerate(job.sections):
            doc = answers[id(job)][i]
            paras = doc.get("paragraphs") if isinstance(doc, dict) else None
            if not isinstance(paras, list) or len(paras) != len(s.records) \
                    or not all(isinstance(p, str) and p.strip() for p in paras):
                job.result = Edited(None, reason=f"paraphrase_unparseable: {s.name}")
                break
            if any(len(p) >= _max_len(s) for p in paras):
                job.result = Edited(None, reason=f"paraphrase_truncated: {s.name}")
                break
            job.rewrites.append(paras)
        if job.result is not None:
            continue
        out = apply_paraphrase(job.package, job.sections, job.rewrites)
        changed = [d for s, new in zip(job.sections, job.rewrites, strict=True)
                   for d in paraphrase_difference(s, new)]
        params = {**out.params, "sections_skipped": job.skipped}
        if changed:
            job.result = Edited(None, reason=f"paraphrase_changed_numbers: {', '.join(changed[:10])}",
                                params=params, checks=out.checks)
        elif all(" ".join(r.text.split()) == " ".join(t.split()) for s, new in zip(job.sections, job.rewrites,
                                                                                   strict=True)
                 for r, t in zip(s.records, new, strict=True)):
            job.result = Edited(None, reason="paraphrase_unchanged", params=params, checks=out.checks)
        else:
            job.result = dataclasses.replace(out, params=params)


def validate_request(cfg, paper_id: str, i: int, section: Section, rewritten: list[str]):
    """The validation call of section i of a paper's paraphrase (the dry run sizes one it cannot make yet)."""
    return judge_request(cfg, JUDGE, "validate", "stress_paraphrase_validate", subject_id=f"stress:{paper_id}:{i}",
                         max_tokens=160, section=section.name, original="\n\n".join(r.text for r in section.records),
                         rewritten="\n\n".join(rewritten))


def validate(ctx: JudgeContext, todo: list[Job]) -> None:
    """The validation call per section of every paraphrase that passed its deterministic check."""
    reqs, where = [], []
    for job in todo:
        for i, (s, new) in enumerate(zip(job.sections, job.rewrites, strict=True)):
            reqs.append(validate_request(ctx.cfg, job.paper_id, i, s, new))
            where.append((job, s))
    verdicts: dict[int, list[tuple[str, object]]] = {}
    for (job, s), res in zip(where, ctx.call_many(reqs, "stress: paraphrase validation"), strict=True):
        if isinstance(res, BaseException):
            job.failed_call = f"{type(res).__name__}: {res}"
            continue
        job.request_keys.append(res.request_key)
        verdicts.setdefault(id(job), []).append((s.name, answer(res)))
    for job in todo:
        if job.failed_call is not None:
            continue
        checks = dict(job.result.checks)
        for name, doc in verdicts.get(id(job), []):
            same = doc.get("same_content") if isinstance(doc, dict) else None
            why = doc.get("rationale") if isinstance(doc, dict) and isinstance(doc.get("rationale"), str) else ""
            if not isinstance(same, bool):
                checks[f"validated: {name}"] = check(False, "unparseable answer")
                job.result = Edited(None, reason=f"paraphrase_validation_unparseable: {name}",
                                    params=job.result.params, checks=checks)
                break
            checks[f"validated: {name}"] = check(same, why.strip()[:300])
            if not same:
                job.result = Edited(None, reason=f"paraphrase_validation_failed: {name}",
                                    params=job.result.params, checks=checks)
                break
        else:
            job.result = dataclasses.replace(job.result, checks=checks)


def paraphrase(ctx: JudgeContext, papers: list[tuple[str, ManuscriptPackage]],
               max_sections: int | None) -> list[Job]:
    """Each paper's paraphrase job, its `result` set (None with `failed_call` when a call failed)."""
    out = jobs(ctx, papers, max_sections)
    todo = [j for j in out if j.result is None]
    rewrite(ctx, todo)
    validate(ctx, [j for j in todo if j.failed_call is None and j.result is not None and j.result.package is not None])
    return out
