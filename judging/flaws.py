"""Flaw identification (PRISM §3): which flaws of a paper a review finds, and in what order.

Per paper and system review, one pool: the paper's human reviews plus ONE review by the system under
test (one sample), as PRISM pools its humans with one LLM review (N = humans + 1). Adding a system,
or a second sample of one, never changes another pool (nor its requests), so a study's sample count
never moves the human baseline. Three calls, each batched over every pool: extract the distinct
flaws with each raising reviewer's verbatim quote; validate them against the paper (valid or not,
critical or minor); then map each member review onto the pool's valid flaws, located by anchor
quote. Python keeps only known labels and ids; a raise whose quote it cannot place in the reviewer's
text is kept, as PRISM keeps it (its raw_arguments are never checked), and flagged `unplaced`
(judging.locate.place_quote says how each quote was found). dbt computes recall, hallucination rate
and nCPS from the rows under PRISM's rule, and beside them the verbatim variant (only raises whose
quote is verbatim, peerlake's former rule).
"""

import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.ingest.manuscripts import latest_versions, load_package
from peerlake.judging.base import (
    JudgeContext,
    Judgment,
    ReviewMetric,
    answer,
    budgeted,
    judge_request,
    review_inputs,
)
from peerlake.judging.locate import PLACED, VERBATIM, locate, place_quote
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import field_at
from peerlake.warehouse import settings

JUDGE = "flaws"
ORDER = 3  # its place in judging.registry's lists
# PRISM reads Summary / Weaknesses / Questions (flaw_identification format_human_review_text)
SECTIONS = frozenset({"summary", "weaknesses", "questions"})
REVIEW_STEP = "order"  # one judgment per (pool, review): the per-review step (benchmarks/judge_cost.py)
TEMPLATES = ("judge_flaws_extract", "judge_flaws_validate", "judge_flaws_order")
# 2: order rows carry their section, raise rows how their quote matched; 3: a raise whose quote is not
# found is kept (`verbatim` "unplaced"), and a quote may be placed "loose" or "elided"
PARSER_VERSION = "flaws-3"
UNPLACED = "unplaced"  # a raise row's `verbatim` when its quote is nowhere in the reviewer's text
# Judged in pools (a paper's reviews together), so its per-review model has a row per pool and review.
POOLED = True
METRICS = (ReviewMetric("recall_critical", "Flaws: recall (critical)", headline=True, null_reason="no_critical_flaws"),
           ReviewMetric("recall_minor", "Flaws: recall (minor)", null_reason="no_minor_flaws"),
           ReviewMetric("recall_critical_weighted", "Flaws: weighted recall (critical)",
                        null_reason="no_critical_flaws"),
           ReviewMetric("recall_minor_weighted", "Flaws: weighted recall (minor)", null_reason="no_minor_flaws"),
           ReviewMetric("hallucination_rate", "Flaws: hallucination rate", null_reason="no_flaws_raised"),
           ReviewMetric("ncps", "Flaws: nCPS", headline=True, null_reason_column="ncps_null_reason"))
TOPICS = ("methodology", "experiments", "theory", "novelty", "applicability", "presentation", "related_work")
TRUNCATED = "[… truncated …]"
# Answer budgets (tokens) as (base, per flaw): a flaw with its quotes ~100, a verdict ~30, a mention ~40
# (six flaws: 700 / 200 / 270, what the embedded model had before caps were settings). Under a cap the
# flaws counted are the cap; without one (a hosted judge) validate and order know how many flaws they
# ask about, and the extractor's answer is bounded by what it can quote: its budget follows the pool's
# text (EXTRACT_CHARS_PER_TOKEN), never below the judge's max_output_tokens (judging.base.budgeted). A
# budget sized for n flaws would cut the answer that lists n + 1, and PRISM lists all.
EXTRACT_TOKENS, VALIDATE_TOKENS, ORDER_TOKENS = (100, 100), (20, 30), (30, 40)
EXTRACT_CHARS_PER_TOKEN = 3  # every quote is the reviews' own words, each flaw adds a summary

_LABEL = re.compile(r"^\s*(?:r|reviewer)\s*#?\s*(\d+)\s*$", re.I)
_FLAW_ID = re.compile(r"^\s*f?\s*(\d+)\s*$", re.I)
_ROW_KEYS = ("kind", "review_key", "flaw_id", "topic", "summary", "is_valid", "severity", "quote", "verbatim")


@dataclass(frozen=True)
class Pool:
    key: str  # pool:<paper_id>|<system>|s<sample>
    paper_id: str
    system: str
    sample: str  # the system review's sample index; "<index>-<k>" for the k-th other review sharing it
    reviews: tuple[JudgedReview, ...]  # the paper's human reviews, then the one system review

    @property
    def members(self) -> tuple[JudgedReview, ...]:
        """The reviews the extractor reads (labelled R1..Rn in this order): an empty review can
        raise nothing, and counting it would lower every flaw's consensus weight."""
        return tuple(r for r in self.reviews if r.text.strip())


def pools(reviews: Sequence[JudgedReview]) -> list[Pool]:
    """One pool per non-human review: its paper's human reviews plus it; a paper no system reviewed
    has none. Keyed pool:<paper_id>|<system>|s<sample>. Imported reviews may share a sample index
    (an import without one says 0): the second, by review key, is s<index>-1, and so on
    (int_judged_pool_members ranks them the same way)."""
    by_paper: dict[str, list[JudgedReview]] = {}
    for r in reviews:
        by_paper.setdefault(r.paper_id, []).append(r)
    out = []
    for paper_id in sorted(by_paper):
        humans = tuple(r for r in by_paper[paper_id] if r.source == "human")
        systems = [r for r in by_paper[paper_id] if r.source != "human"]
        taken: dict[tuple[str, int], int] = {}
        for r in sorted(systems, key=lambda r: (r.system, _sample_index(r), r.review_key)):
            index = _sample_index(r)
            k = taken.get((r.system, index), 0)
            taken[(r.system, index)] = k + 1
            sample = str(index) if k == 0 else f"{index}-{k}"
            out.append(Pool(key=f"pool:{paper_id}|{r.system}|s{sample}", paper_id=paper_id, system=r.system,
                            sample=sample, reviews=(*humans, r)))
    return out


def coverage(reviews: Sequence[JudgedReview]) -> dict:
    """What the study's resolution records this judge covered (the `judgments` asset's hook): the pools
    it forms from each review's flaws view, so a review with nothing the flaws judge reads (only
    Strengths, say) is no member either."""
    formed = pools([r.for_judge(JUDGE) for r in reviews])
    return {"pools": [p.key for p in formed],
            "review_keys": sorted({r.review_key for p in formed for r in p.members})}


def _sample_index(review: JudgedReview) -> int:
    return review.sample_index if review.sample_index is not None else 0


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """The `pool` judgment of every pool, then the `order` judgment of every member of each pool
    that was judged ok. Two options exist for the position probes (judging/probes.py) only:
    pool_order="system_first" shows the system review as R1, flaw_listing="reversed" lists the valid
    flaws to the order step last first; other options are accepted for the common judge interface."""
    reviews = [r.for_judge(JUDGE) for r in reviews]  # summary, weaknesses, questions (judging/reviews.py)
    all_pools = pools(reviews)
    if options.get("pool_order") == "system_first":
        all_pools = [dataclasses.replace(p, reviews=(p.reviews[-1], *p.reviews[:-1])) for p in all_pools]
    caps = {"flaws": ctx.cfg.cap("flaws"), "flaw_raisers": ctx.cfg.cap("flaw_raisers")}
    jobs = [_PoolJob(p, Judgment(JUDGE, "pool", p.key, p.paper_id, ctx.repeat, inputs=_pool_inputs(p, caps)))
            for p in all_pools]
    _read_papers(ctx, jobs)
    _extract(ctx, [j for j in jobs if j.open])
    _validate(ctx, [j for j in jobs if j.open])
    for job in jobs:
        if job.open:
            job.judgment.units = job.rows()
    orders = _order(ctx, [j for j in jobs if j.open], reverse_listing=options.get("flaw_listing") == "reversed")
    return [j.judgment for j in jobs] + orders


# ---- one pool through its steps --------------------------------------------------------------

@dataclass
class _Flaw:
    topic: str
    summary: str
    raises: list[tuple[JudgedReview, str, str]]  # (reviewer, quote, how it was placed: PLACED or UNPLACED)
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
            for review, quote, how in f.raises:
                out.append({**blank, "kind": "raise", "review_key": review.review_key, "flaw_id": f.flaw_id,
                            "topic": f.topic, "summary": f.summary, "is_valid": f.is_valid,
                            "severity": f.severity, "quote": quote, "verbatim": how})
        return out


def _pool_inputs(pool: Pool, caps: dict) -> dict:
    return {"system": pool.system, "sample": pool.sample, "caps": caps,
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
    max_flaws, max_raisers = ctx.cfg.cap("flaws"), ctx.cfg.cap("flaw_raisers")
    reqs = []
    for job in jobs:
        members = job.pool.members
        shown = [{"label": f"R{i}", "text": _cut(r.text, budget // len(members))} for i, r in enumerate(members, 1)]
        need = (_tokens(EXTRACT_TOKENS, max_flaws) if max_flaws is not None
                else EXTRACT_TOKENS[0] + sum(len(r["text"]) for r in shown) // EXTRACT_CHARS_PER_TOKEN)
        cfg, tokens = budgeted(ctx.cfg, need)
        req = judge_request(cfg, JUDGE, "extract", "judge_flaws_extract", subject_id=job.pool.key,
                            repeat=ctx.repeat, max_tokens=tokens, reviews=shown,
                            max_flaws=max_flaws, max_raisers=max_raisers)
        reqs.append(_narrowed(req, "extract", max_flaws, max_raisers))
    for job, result in zip(jobs, _call(ctx, reqs, "flaws: extract"), strict=True):
        job.judgment.results.append(result)
        doc = answer(result)
        if doc is None or not isinstance(doc.get("flaws"), list):
            job.close(result, "unparseable:extract")
            continue
        job.flaws = _parse_flaws(doc["flaws"], job.pool.members, job.judgment, max_flaws, max_raisers)


def _tokens(budget: tuple[int, int], n: int) -> int:
    """A step's answer budget for n flaws (the cap, or the flaws asked about)."""
    return budget[0] + budget[1] * n


def _narrowed(req, step: str, max_flaws: int | None, max_raisers: int | None):
    """The request with its schema bound to the caps in force (no bound without a cap): a grammar-decoding
    model then stops within the step's budget. Flaw ids are F1..F<cap> only under a cap."""
    if max_flaws is None and max_raisers is None:
        return req
    schema = copy.deepcopy(req.response_schema)
    props = schema["properties"]
    if step == "extract":
        if max_flaws is not None:
            props["flaws"]["maxItems"] = max_flaws
        if max_raisers is not None:
            props["flaws"]["items"]["properties"]["raised_by"]["maxItems"] = max_raisers
    elif max_flaws is not None:
        listed = props["evaluations" if step == "validate" else "mentions"]
        listed["maxItems"] = max_flaws  # the order step: each flaw at most once
        listed["items"]["properties"]["flaw_id"]["enum"] = [f"F{i}" for i in range(1, max_flaws + 1)]
    return dataclasses.replace(req, response_schema=schema)


def _parse_flaws(items: list, members: Sequence[JudgedReview], j: Judgment, max_flaws: int | None = None,
                 max_raisers: int | None = None) -> list[_Flaw]:
    """Flaws with at least one raise by a pool member, numbered F1.. in the extractor's order; a cap
    keeps the first `max_flaws` such flaws and each one's first `max_raisers` raisers, counting what it
    cut. A raise whose quote cannot be placed in the reviewer's text is kept as `unplaced` (PRISM's
    rule; the marts' verbatim variant leaves it out); of two raises by one reviewer the one placed most
    strictly stands (the first on a tie)."""
    flaws: list[_Flaw] = []
    for item in items:
        if not isinstance(item, dict):
            j.drop("bad_flaw")
            continue
        if max_flaws is not None and len(flaws) == max_flaws:
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
            quote = r.get("quote") if isinstance(r.get("quote"), str) else ""
            hit = place_quote(quote, review.text)
            how = hit.how if hit is not None else UNPLACED
            done = next((k for k, (by, _, _) in enumerate(flaw.raises) if by is review), None)
            if done is not None:
                j.drop("duplicate_raise")  # one row per (flaw, reviewer): W_i counts reviewers
                if _strictness(how) < _strictness(flaw.raises[done][2]):
                    flaw.raises[done] = (review, quote.strip(), how)
                continue
            if max_raisers is not None and len(flaw.raises) == max_raisers:
                j.drop("over_max_raisers")
                continue
            flaw.raises.append((review, quote.strip(), how))
        if not flaw.raises:
            j.drop("flaw_without_quote")
            continue
        flaw.flaw_id = f"F{len(flaws) + 1}"
        flaws.append(flaw)
    return flaws


def _strictness(how: str) -> int:
    """0 for a strict quote … len(PLACED) for an unplaced one."""
    return PLACED.index(how) if how in PLACED else len(PLACED)


def _validate(ctx: JudgeContext, jobs: list["_PoolJob"]) -> None:
    # A pool with no flaw left is judged (members only) without asking the validator.
    jobs = [j for j in jobs if j.flaws]
    max_flaws = ctx.cfg.cap("flaws")
    budgets = {id(job): budgeted(ctx.cfg, _tokens(VALIDATE_TOKENS, max_flaws or len(job.flaws))) for job in jobs}
    reqs = [_narrowed(judge_request(budgets[id(job)][0], JUDGE, "validate", "judge_flaws_validate",
                                    subject_id=job.pool.key, repeat=ctx.repeat, max_tokens=budgets[id(job)][1],
                                    paper_text=job.paper_text,
                                    flaws=[{"flaw_id": f.flaw_id, "topic": f.topic, "summary": f.summary}
                                           for f in job.flaws]),
                      "validate", max_flaws, None)
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


def _order(ctx: JudgeContext, jobs: list["_PoolJob"], reverse_listing: bool = False) -> list[Judgment]:
    """One `order` judgment per (pool, member); a pool without valid flaws makes no call."""
    out: list[Judgment] = []
    asks: list[tuple[Judgment, JudgedReview, dict[str, _Flaw]]] = []
    reqs = []
    max_chars = settings.judge_max_chars(ctx.cfg.provider)
    max_flaws = ctx.cfg.cap("flaws")
    for job in jobs:
        valid = [f for f in job.flaws if f.is_valid]
        listed = [{"flaw_id": f.flaw_id, "summary": f.summary} for f in valid]
        if reverse_listing:
            listed.reverse()
        pool_keys = sorted({r.request_key for r in job.judgment.results})
        for review in job.pool.members:
            subject = f"{job.pool.key}|{review.review_key}"
            j = Judgment(JUDGE, "order", subject, job.pool.paper_id, ctx.repeat,
                         inputs={**review_inputs(review), "pool": job.pool.key,
                                 "valid_flaws": [f.flaw_id for f in valid], "pool_request_keys": pool_keys})
            out.append(j)
            if valid:
                asks.append((j, review, {f.flaw_id: f for f in valid}))
                cfg, tokens = budgeted(ctx.cfg, _tokens(ORDER_TOKENS, max_flaws or len(valid)))
                reqs.append(_narrowed(judge_request(cfg, JUDGE, "order", "judge_flaws_order",
                                                    subject_id=subject, repeat=ctx.repeat, max_tokens=tokens,
                                                    review=_cut(review.text, max_chars), flaws=listed),
                                      "order", max_flaws, None))
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
    """One row per valid flaw the review mentions, where its anchor sits. A flaw counts once, at its
    first mention in the judge's list (PRISM's mapping keeps the first occurrence): a repeated flaw
    would weigh twice in CPS. `section` is the review field holding the position (judging.spans.field_at;
    a mention placed at the end is in the last field), so nCPS can reset per section as PRISM's does.
    `flaw_verbatim` says whether the flaw has a raise with a verbatim quote: the marts' verbatim variant
    counts only those flaws' mentions, as if the others had never been extracted."""
    rows, seen = [], set()
    for m in items:
        flaw = valid.get(_flaw_id(m.get("flaw_id"))) if isinstance(m, dict) else None
        if flaw is None:
            j.drop("unknown_flaw")  # not a valid flaw of the pool (or no id at all)
            continue
        if flaw.flaw_id in seen:
            j.drop("duplicate_mention")
            continue
        seen.add(flaw.flaw_id)
        anchor = m.get("anchor") if isinstance(m.get("anchor"), str) else None
        position, located_by = locate(anchor, review.text)
        rows.append({"review_key": review.review_key, "flaw_id": flaw.flaw_id, "severity": flaw.severity,
                     "position": position, "located_by": located_by, "section": field_at(review, position),
                     "flaw_verbatim": any(how in VERBATIM for _, _, how in flaw.raises)})
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


# ---- what the bias probes compare (judging.probes): the pool and order rows, as the flaws models read them ----
# Beside the review-text probes, two of the pool's own: the system review shown first, the flaws listed reversed.
PROBES = ("pool_order", "candidate_order")
PROBE_TOLERANCE = {"n_flaws": 1.0, "n_raised_by_system": 1.0, "n_mentions": 1.0}


def probe_measures(step: str, units: list[dict], inputs: dict) -> dict[str, float]:
    if step == "pool":
        humans = {m.get("review_key") for m in inputs.get("members", []) if m.get("source") == "human"}
        raises = [u for u in units if u.get("kind") == "raise"]
        return {"n_flaws": float(len({u.get("flaw_id") for u in raises})),
                "n_raised_by_system": float(len({u.get("flaw_id") for u in raises
                                                 if u.get("review_key") not in humans}))}
    return {"n_mentions": float(len(units))} if step == REVIEW_STEP else {}
