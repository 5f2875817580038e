"""Flaw identification (PRISM §3): which flaws of a paper a review finds, and in what order.

Per paper and system under test, one pool: the paper's human reviews plus that system's review(s),
so adding a system never changes another system's pool (nor its requests). Three calls, each
batched over every pool: extract the distinct flaws with each raising reviewer's verbatim quote;
validate them against the paper (valid or not, critical or minor); then map each member review onto
the pool's valid flaws, located by anchor quote. Python keeps only what it can check (verbatim
quotes, known labels and ids); dbt computes recall, hallucination rate and nCPS from the rows.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.manuscripts import latest_versions, load_package
from judging.base import JudgeContext, Judgment, answer, find_verbatim, judge_request, review_inputs
from judging.locate import locate
from judging.reviews import JudgedReview
from warehouse import settings

JUDGE = "flaws"
TEMPLATES = ("judge_flaws_extract", "judge_flaws_validate", "judge_flaws_order")
PARSER_VERSION = "flaws-1"
MAX_FLAWS = 6  # the schemas' bound: ids F1..F6
TOPICS = ("methodology", "experiments", "theory", "novelty", "applicability", "presentation", "related_work")
TRUNCATED = "[… truncated …]"
# Answer budgets (tokens): six flaws with quotes; six three-field verdicts; eight id + anchor pairs.
EXTRACT_TOKENS, VALIDATE_TOKENS, ORDER_TOKENS = 700, 200, 350

_LABEL = re.compile(r"^\s*(?:r|reviewer)\s*#?\s*(\d+)\s*$", re.I)
_FLAW_ID = re.compile(r"^\s*f?\s*(\d+)\s*$", re.I)
_ROW_KEYS = ("kind", "review_key", "flaw_id", "topic", "summary", "is_valid", "severity", "quote")


@dataclass(frozen=True)
class Pool:
    key: str  # pool:<paper_id>|<system>
    paper_id: str
    system: str
    reviews: tuple[JudgedReview, ...]  # the paper's human reviews, then the system's

    @property
    def members(self) -> tuple[JudgedReview, ...]:
        """The reviews the extractor reads (labelled R1..Rn in this order): an empty review can
        raise nothing, and counting it would lower every flaw's consensus weight."""
        return tuple(r for r in self.reviews if r.text.strip())


def pools(reviews: Sequence[JudgedReview]) -> list[Pool]:
    """One pool per (paper, non-human system with a review of it); a paper no system reviewed has none."""
    by_paper: dict[str, list[JudgedReview]] = {}
    for r in reviews:
        by_paper.setdefault(r.paper_id, []).append(r)
    out = []
    for paper_id in sorted(by_paper):
        humans = tuple(r for r in by_paper[paper_id] if r.source == "human")
        systems = sorted({r.system for r in by_paper[paper_id] if r.source != "human"})
        for system in systems:
            own = tuple(r for r in by_paper[paper_id] if r.source != "human" and r.system == system)
            out.append(Pool(key=f"pool:{paper_id}|{system}", paper_id=paper_id, system=system,
                            reviews=humans + own))
    return out


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """The `pool` judgment of every pool, then the `order` judgment of every member of each pool
    that was judged ok (`options` are accepted for the common judge interface; none are used)."""
    all_pools = pools(reviews)
    jobs = [_PoolJob(p, Judgment(JUDGE, "pool", p.key, p.paper_id, ctx.repeat, inputs=_pool_inputs(p)))
            for p in all_pools]
    _read_papers(ctx, jobs)
    _extract(ctx, [j for j in jobs if j.open])
    _validate(ctx, [j for j in jobs if j.open])
    for job in jobs:
        if job.open:
            job.judgment.units = job.rows()
    orders = _order(ctx, [j for j in jobs if j.open])
    return [j.judgment for j in jobs] + orders


# ---- one pool through its steps --------------------------------------------------------------

@dataclass
class _Flaw:
    topic: str
    summary: str
    raises: list[tuple[JudgedReview, str]]  # (reviewer, verbatim quote)
    flaw_id: str = ""
    is_valid: bool | None = None
    severity: str = "minor"


class _PoolJob:
    def __init__(self, pool: Pool, judgment: Judgment):
        self.pool = pool
        self.judgment = judgment
        self.paper_text: str | None = None
        self.flaws: list[_Flaw] = []

    @property
    def open(self) -> bool:
        """Still being judged: no null reason and no failed call yet."""
        return self.judgment.null_reason is None and self.judgment.failed_call is None

    def close(self, result, null_reason: str | None = None) -> None:
        if isinstance(result, BaseException):
            self.judgment.failed_call = f"{type(result).__name__}: {result}"
        else:
            self.judgment.null_reason = null_reason

    def rows(self) -> list[dict]:
        blank = dict.fromkeys(_ROW_KEYS)
        out = [{**blank, "kind": "member", "review_key": r.review_key} for r in self.pool.members]
        for f in self.flaws:
            for review, quote in f.raises:
                out.append({**blank, "kind": "raise", "review_key": review.review_key, "flaw_id": f.flaw_id,
                            "topic": f.topic, "summary": f.summary, "is_valid": f.is_valid,
                            "severity": f.severity, "quote": quote})
        return out


def _pool_inputs(pool: Pool) -> dict:
    return {"system": pool.system,
            "members": [{"label": f"R{i}", "review_key": r.review_key, "source": r.source,
                         "chars": len(r.text)} for i, r in enumerate(pool.members, 1)],
            "excluded_empty": [r.review_key for r in pool.reviews if not r.text.strip()]}


def _read_papers(ctx: JudgeContext, jobs: list["_PoolJob"]) -> None:
    """The newest manuscript of each pool's paper, cut for the validator; null pools make no call."""
    versions = latest_versions(ctx.log)
    max_chars = settings.judge_max_chars(ctx.cfg.provider)
    texts: dict[str, str] = {}
    for job in jobs:
        pool = job.pool
        if not any(r.source != "human" for r in pool.members):
            job.close(None, "empty_pool")  # the system under test wrote nothing readable
            continue
        ev = versions.get(pool.paper_id)
        if ev is None:
            job.close(None, "no_manuscript")
            continue
        if pool.paper_id not in texts:
            # the visible text: what ingest flagged hidden on the page never reaches a judge
            texts[pool.paper_id] = load_package(ctx.log.blobs, ev.package_sha256,
                                                check_images=False).without_hidden().review_text(max_chars)
        job.paper_text = texts[pool.paper_id]
        job.judgment.inputs.update(package_sha256=ev.package_sha256, paper_chars=len(job.paper_text))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:max(0, limit - len(TRUNCATED) - 1)].rstrip()}\n{TRUNCATED}"


def _extract(ctx: JudgeContext, jobs: list["_PoolJob"]) -> None:
    # The reviews share the judge's context window: each gets an equal part of judge_max_chars.
    # Quotes are still checked against the whole review.
    budget = settings.judge_max_chars(ctx.cfg.provider)
    reqs = []
    for job in jobs:
        members = job.pool.members
        shown = [{"label": f"R{i}", "text": _cut(r.text, budget // len(members))} for i, r in enumerate(members, 1)]
        reqs.append(judge_request(ctx.cfg, JUDGE, "extract", "judge_flaws_extract", subject_id=job.pool.key,
                                  repeat=ctx.repeat, max_tokens=EXTRACT_TOKENS, reviews=shown))
    for job, result in zip(jobs, _call(ctx, reqs, "flaws: extract"), strict=True):
        job.judgment.results.append(result)
        doc = answer(result)
        if doc is None or not isinstance(doc.get("flaws"), list):
            job.close(result, "unparseable:extract")
            continue
        job.flaws = _parse_flaws(doc["flaws"], job.pool.members, job.judgment)


def _parse_flaws(items: list, members: Sequence[JudgedReview], j: Judgment) -> list[_Flaw]:
    """Flaws with at least one verbatim quote, numbered F1.. in the extractor's order."""
    flaws: list[_Flaw] = []
    for item in items:
        if not isinstance(item, dict):
            j.drop("bad_flaw")
            continue
        if len(flaws) == MAX_FLAWS:
            j.drop("over_max_flaws")
            continue
        topic = str(item.get("topic") or "").strip().lower()
        flaw = _Flaw(topic=topic if topic in TOPICS else "other", summary=str(item.get("summary") or "").strip(),
                     raises=[])
        raised = item.get("raised_by") if isinstance(item.get("raised_by"), list) else []
        for r in raised:
            m = _LABEL.match(str(r.get("reviewer", ""))) if isinstance(r, dict) else None
            if m is None or not 1 <= int(m.group(1)) <= len(members):
                j.drop("unknown_reviewer")
                continue
            review = members[int(m.group(1)) - 1]
            quote = r.get("quote")
            if not isinstance(quote, str) or find_verbatim(quote, review.text) is None:
                j.drop("not_verbatim")
                continue
            if any(done is review for done, _ in flaw.raises):
                j.drop("duplicate_raise")  # one row per (flaw, reviewer): W_i counts reviewers
                continue
            flaw.raises.append((review, quote.strip()))
        if not flaw.raises:
            j.drop("flaw_without_quote")
            continue
        flaw.flaw_id = f"F{len(flaws) + 1}"
        flaws.append(flaw)
    return flaws


def _validate(ctx: JudgeContext, jobs: list["_PoolJob"]) -> None:
    # A pool with no flaw left is judged (members only) without asking the validator.
    jobs = [j for j in jobs if j.flaws]
    reqs = [judge_request(ctx.cfg, JUDGE, "validate", "judge_flaws_validate", subject_id=job.pool.key,
                          repeat=ctx.repeat, max_tokens=VALIDATE_TOKENS, paper_text=job.paper_text,
                          flaws=[{"flaw_id": f.flaw_id, "topic": f.topic, "summary": f.summary} for f in job.flaws])
            for job in jobs]
    for job, result in zip(jobs, _call(ctx, reqs, "flaws: validate"), strict=True):
        job.judgment.results.append(result)
        doc = answer(result)
        if doc is None or not isinstance(doc.get("evaluations"), list):
            job.close(result, "unparseable:validate")
            continue
        by_id = {f.flaw_id: f for f in job.flaws}
        for ev in doc["evaluations"]:
            flaw = by_id.get(_flaw_id(ev.get("flaw_id"))) if isinstance(ev, dict) else None
            if flaw is None or flaw.is_valid is not None:
                continue  # an id we did not ask about, or a second verdict: the first one stands
            flaw.is_valid = _boolean(ev.get("is_valid"))
            # PRISM: only an explicit Critical is critical; minor or undecided → minor.
            flaw.severity = "critical" if str(ev.get("severity", "")).strip().lower() == "critical" else "minor"
        unjudged = [f for f in job.flaws if f.is_valid is None]
        if unjudged:
            job.judgment.drop("unvalidated", len(unjudged))
            job.flaws = [f for f in job.flaws if f.is_valid is not None]


def _order(ctx: JudgeContext, jobs: list["_PoolJob"]) -> list[Judgment]:
    """One `order` judgment per (pool, member); a pool without valid flaws makes no call."""
    out: list[Judgment] = []
    asks: list[tuple[Judgment, JudgedReview, dict[str, _Flaw]]] = []
    reqs = []
    max_chars = settings.judge_max_chars(ctx.cfg.provider)
    for job in jobs:
        valid = [f for f in job.flaws if f.is_valid]
        listed = [{"flaw_id": f.flaw_id, "summary": f.summary} for f in valid]
        pool_keys = sorted({r.request_key for r in job.judgment.results})
        for review in job.pool.members:
            subject = f"{job.pool.key}|{review.review_key}"
            j = Judgment(JUDGE, "order", subject, job.pool.paper_id, ctx.repeat,
                         inputs={**review_inputs(review), "pool": job.pool.key,
                                 "valid_flaws": [f.flaw_id for f in valid], "pool_request_keys": pool_keys})
            out.append(j)
            if valid:
                asks.append((j, review, {f.flaw_id: f for f in valid}))
                reqs.append(judge_request(ctx.cfg, JUDGE, "order", "judge_flaws_order", subject_id=subject,
                                          repeat=ctx.repeat, max_tokens=ORDER_TOKENS,
                                          review=_cut(review.text, max_chars),
                                          flaws=listed))
    for (j, review, valid), result in zip(asks, _call(ctx, reqs, "flaws: order"), strict=True):
        j.results.append(result)
        doc = answer(result)
        if isinstance(result, BaseException):
            j.failed_call = f"{type(result).__name__}: {result}"
        elif doc is None or not isinstance(doc.get("mentions"), list):
            j.null_reason = "unparseable:order"
        else:
            j.units = _mentions(doc["mentions"], review, valid, j)
    return out


def _mentions(items: list, review: JudgedReview, valid: dict[str, "_Flaw"], j: Judgment) -> list[dict]:
    rows = []
    for m in items:
        flaw = valid.get(_flaw_id(m.get("flaw_id"))) if isinstance(m, dict) else None
        if flaw is None:
            j.drop("unknown_flaw")  # not a valid flaw of the pool (or no id at all)
            continue
        anchor = m.get("anchor") if isinstance(m.get("anchor"), str) else None
        position, located_by = locate(anchor, review.text)
        rows.append({"review_key": review.review_key, "flaw_id": flaw.flaw_id, "severity": flaw.severity,
                     "position": position, "located_by": located_by})
    return rows


def _call(ctx: JudgeContext, reqs: list, description: str) -> list:
    return ctx.call_many(reqs, description) if reqs else []


def _flaw_id(value) -> str | None:
    m = _FLAW_ID.match(str(value)) if value is not None else None
    return f"F{int(m.group(1))}" if m else None


def _boolean(value) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "valid", "yes", "false", "invalid", "no"):
        return value.strip().lower() in ("true", "valid", "yes")
    return None
