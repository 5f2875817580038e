"""Novelty verification (PRISM §2, after OpenNovelty): does what a review says about the paper's
novelty hold up against the earlier literature?

  step `paper`  (subject paper:<id>)  judge_novelty_paper on the paper up to its references → core
                task, 1–3 contributions, key terms. One judgment per paper, shared by its reviews.
  step `claims` (subject review key)  judge_novelty_claims → verbatim novelty claims; one literature
                search per contribution (core task + contribution name); the candidate pool
                (judging/candidates.py); judge_novelty_verify for each claim × each of the
                `verify_top` most relevant candidates. One unit row per (claim, candidate).

The review is read as JudgedReview.for_judge("novelty"): every section (PRISM's extractor reads a
human review's Summary, Strengths, Weaknesses, Questions and Limitations and a system's whole text). The
claims prompt asks for ALL novelty claims in review order; the `novelty_claims` cap (judging/caps.py:
5 on the embedded model, none on a hosted one; a study's [judging] max_claims is its older name) cuts the
tail, counted `over_max_claims`. Candidate relevance is the backend's normalized score when it gives one
(judging/candidates.py).

Each step is batched over all its subjects. The verdict's score (+2 … −2) and every aggregate are
computed in dbt from the rows; a search or call that failed leaves the review unrecorded (retried by
the next run), anything else that cannot be judged is null with a reason: a review of a paper the lake
has no manuscript of is null (paper:no_manuscript) without a call, unless the study sets [judging]
claims_without_paper (`peerlake validate-judges disapere`): then its claims and stances are extracted and,
with no contribution to search for, none is scored.
"""

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from peerlake.ingest.package import fit_text, load_package
from peerlake.judging.base import JudgeContext, Judgment, ReviewMetric, answer, judge_request, review_inputs
from peerlake.judging.candidates import PoolEntry, build_pool, most_relevant
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.spans import judged_text, verbatim_span
from peerlake.retrieval import RetrievalClient, RetrievalRequest
from peerlake.warehouse import settings
from peerlake.warehouse.blobs import BlobCorrupted

JUDGE = "novelty"
ORDER = 2  # its place in judging.registry's lists
# every section: PRISM's extractor reads a human review's Summary, Strengths, Weaknesses, Questions and
# Limitations (novelty_vefification/scripts/run_pipeline.py _reviews_to_text) and a system's whole text
SECTIONS = None
REVIEW_STEP = "claims"  # the step with one judgment per judged review (benchmarks/judge_cost.py counts them)
TEMPLATES = ("judge_novelty_paper", "judge_novelty_claims", "judge_novelty_verify")
PARSER_VERSION = "2"  # 2: every section read, the claims cap a setting, relevance from the backend's score

STANCES = ("not_novel", "somewhat_novel", "novel", "unclear")
VERDICTS = ("SUPPORTED", "OVERSTATED", "AMBIGUOUS", "UNDERSTATED", "UNSUPPORTED")
# relevance: "score" = the backend's normalized score when it gives one, else PRISM's (n − rank)/n;
# "rank" = PRISM's always (judging/candidates.py). PRISM's Semantic Scholar search has no score.
DEFAULTS = {"verify_top": 3, "retrieval": "offline", "retrieval_limit": 10, "relevance": "score",
            "claims_without_paper": False}
CAP = "novelty_claims"
METRICS = (ReviewMetric("ns", "Novelty: NS", headline=True), ReviewMetric("sr", "Novelty: supported share"),
           ReviewMetric("ssr", "Novelty: supported-or-understated share"))
CARD_SCORE = "ns"  # the score a judge card retests (int_judge_card_score_repeats)
CORE_TASK_WORDS = 20
MAX_CONTRIBUTIONS = 3
MAX_KEY_TERMS = 12
QUERY_WORDS = 25  # OpenNovelty's query: the first 25 words of core task + contribution name
CANDIDATE_ABSTRACT_CHARS = 1200
# Answer budgets: the schemas' longest valid answers (~450, ~600, ~70 tokens) with a little room. The
# claims answer's is per claim (≤ 300 characters copied + stance + 2 prior works of ≤ 60 ≈ 105 tokens) + 20:
# under the cap the narrowed schema's longest answer (cap 5 → 6 items: the 650 the embedded model always
# had); without a cap every claim copied from the review: at most its characters (3 per token) plus ~40
# tokens of stance and prior work per 300 characters, and never below the judge's max_output_tokens.
MAX_TOKENS = {"paper": 500, "claims": 650, "verify": 120}
CLAIM_TOKENS_FIXED, CLAIM_TOKENS = 20, 105


@dataclass
class _Paper:
    """One paper as the judge reads it, and its `paper` judgment."""

    paper_id: str
    judgment: Judgment
    title: str | None = None
    year: int | None = None
    text: str = ""  # up to the references, cut for the extractor
    context: str = ""  # abstract + introduction, cut for the verifier
    result: object = None  # the extraction's LlmResult
    core_task: str = ""
    contributions: list[str] = field(default_factory=list)  # contribution names
    searches: list = field(default_factory=list)  # RetrievalResults (or exceptions), one per query
    pool: list[PoolEntry] | None = None
    pool_stats: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.judgment.null_reason is None and self.judgment.failed_call is None


@dataclass
class _Review:
    review: JudgedReview
    judgment: Judgment
    claims: list[dict] = field(default_factory=list)  # {text, stance, prior_work}
    verify: dict = field(default_factory=dict)  # (claim index, candidate index) → result
    top: list[PoolEntry] = field(default_factory=list)

    @property
    def open(self) -> bool:
        return self.judgment.null_reason is None and self.judgment.failed_call is None


def resources(log) -> dict:
    """What the `judgments` asset opens once per unit for every repeat's JudgeContext (its hook): one
    retrieval client, whose index of answered searches is read from the log once."""
    return {"retrieval": RetrievalClient(log)}


def options(spec) -> dict:
    """The keyword options a study's [judging] table gives `judge` (the `judgments` asset's hook; the
    claims cap is JudgeConfig.cap("novelty_claims"), which [judging] max_claims maps onto)."""
    return {"retrieval": spec.retrieval, "verify_top": spec.verify_top,
            "claims_without_paper": spec.claims_without_paper}


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], **options) -> list[Judgment]:
    """The papers' judgments first, then one judgment per review, in the order given."""
    reviews = [r.for_judge("novelty") for r in reviews]  # every section (judging/reviews.py JUDGE_SECTIONS)
    opts = {**DEFAULTS, **ctx.options, **options}
    jobs = [_Review(r, Judgment(judge="novelty", step="claims", subject_key=r.review_key, paper_id=r.paper_id,
                                repeat=ctx.repeat, inputs=review_inputs(r))) for r in reviews]
    for job in jobs:
        if not job.review.text.strip():
            job.judgment.null_reason = "empty_review"  # nothing to read: no call at all
    papers = _read_papers(ctx, sorted({j.review.paper_id for j in jobs if j.open}))
    _extract_papers(ctx, papers)
    for job in [j for j in jobs if j.open]:
        paper = papers[job.review.paper_id]
        if opts["claims_without_paper"] and paper.judgment.null_reason == "no_manuscript":
            # the claims step reads the review only; with no contributions there is no search, so every
            # claim is a no_candidates row and NS is null (no_scored_claims), but the stances are there
            job.judgment.inputs["paper"] = "no_manuscript"
        else:
            _inherit(job.judgment, paper)
    _extract_claims(ctx, [j for j in jobs if j.open], ctx.cfg.cap(CAP))
    _search(ctx, papers, [j for j in jobs if j.open], opts)
    _verify(ctx, papers, [j for j in jobs if j.open], int(opts["verify_top"]))
    for job in jobs:
        if job.open:
            job.judgment.units = _rows(job)
    return [p.judgment for p in papers.values()] + [j.judgment for j in jobs]


# ---- step paper ----------------------------------------------------------------------------------

def _read_papers(ctx: JudgeContext, paper_ids: list[str]) -> dict[str, _Paper]:
    from peerlake.ingest.manuscripts import latest_versions  # lazy: it imports the PDF reader (~1.5 s)

    versions = latest_versions(ctx.log)
    max_chars = settings.judge_max_chars(ctx.cfg.provider)
    # PRISM's verifier reads 12k characters of abstract + introduction; the local model's 4k-token
    # context holds about 3,000 beside the claim, the candidate and the instructions.
    context_chars = min(12_000, max_chars // 2)
    years = _status_years(ctx.log, set(paper_ids))
    papers = {}
    for pid in paper_ids:
        p = _Paper(pid, Judgment(judge="novelty", step="paper", subject_key=f"paper:{pid}", paper_id=pid,
                                 repeat=ctx.repeat))
        papers[pid] = p
        ev = versions.get(pid)
        if ev is None:
            p.judgment.null_reason = "no_manuscript"
            continue
        p.title, p.year = ev.title, ev.year if ev.year is not None else years.get(pid)
        try:
            # the visible text: what ingest flagged hidden on the page never reaches a judge
            package = load_package(ctx.log.blobs, ev.package_sha256, check_images=False).without_hidden()
        except (OSError, ValueError, BlobCorrupted) as exc:  # a missing or corrupt blob: say so, do not guess
            p.judgment.null_reason = "manuscript_unreadable"
            p.judgment.inputs = {"package_sha256": ev.package_sha256, "error": type(exc).__name__}
            continue
        body = _lines(package.part_records("front", "body"))
        p.text = fit_text(body, max_chars)
        p.context = fit_text(_lines(_abstract_and_intro(package)) or body, context_chars)
        p.judgment.inputs = {"package_sha256": ev.package_sha256, "title": ev.title, "year": ev.year,
                             "chars": len(body), "chars_seen": len(p.text), "context_chars": len(p.context)}
        if not body.strip():
            p.judgment.null_reason = "empty_manuscript"
    return papers


def _status_years(log, paper_ids: set[str]) -> dict[str, int]:
    """A year the paper's ingest event lacks, from the venue's decision (the newest that has one), as
    the offline index does: without a year nothing counts as published after the paper."""
    newest: dict[str, tuple[str, int]] = {}
    for ev in log.iter_events("paper_status_recorded"):
        if ev.paper_id in paper_ids and ev.year is not None and ev.event_id > newest.get(ev.paper_id, ("", 0))[0]:
            newest[ev.paper_id] = (ev.event_id, ev.year)
    return {pid: year for pid, (_, year) in newest.items()}


def _lines(records) -> str:
    return "\n".join(r.text for r in records).strip()


def _abstract_and_intro(package) -> list:
    """The records under an Abstract or Introduction heading (front matter or body)."""
    def wanted(section: str | None) -> bool:
        s = (section or "").lower()
        return s.startswith("abstract") or "introduction" in s
    return [r for r in package.part_records("front", "body") if wanted(r.section)]


def _extract_papers(ctx: JudgeContext, papers: dict[str, _Paper]) -> None:
    todo = [p for p in papers.values() if p.ok]
    reqs = [judge_request(ctx.cfg, "novelty", "paper", "judge_novelty_paper", subject_id=f"paper:{p.paper_id}",
                          repeat=ctx.repeat, max_tokens=MAX_TOKENS["paper"], paper_text=p.text,
                          **({"title": p.title} if p.title else {})) for p in todo]
    for p, res in zip(todo, ctx.call_many(reqs, "novelty: papers") if reqs else [], strict=True):
        if isinstance(res, BaseException):
            p.judgment.failed_call = f"{type(res).__name__}: {res}"
            continue
        p.result = res
        p.judgment.results.append(res)
        p.judgment.units = _paper_units(p, answer(res))


def _paper_units(p: _Paper, doc: dict | None) -> list[dict]:
    j = p.judgment
    if doc is None or not isinstance(doc.get("contributions"), list):
        j.null_reason = "unparseable:paper"
        return []
    units = []
    words = _text(doc.get("core_task")).split()
    if len(words) > CORE_TASK_WORDS:
        j.drop("core_task_cut")  # cut to the 20 words asked for, not dropped
    p.core_task = " ".join(words[:CORE_TASK_WORDS])
    if p.core_task:
        units.append(_paper_row("core_task", p.core_task))
    for item in doc["contributions"]:
        name = _text(item.get("name")) if isinstance(item, dict) else ""
        if not name:
            j.drop("bad_contribution")
        elif len(p.contributions) >= MAX_CONTRIBUTIONS:
            j.drop("over_max_contributions")
        else:
            p.contributions.append(name)
            units.append(_paper_row("contribution", name, name=name, claim=_text(item.get("claim")) or None,
                                    description=_text(item.get("description")) or None))
    terms = [t for t in map(_text, doc.get("key_terms") or []) if t] if isinstance(doc.get("key_terms"), list) else []
    if len(terms) > MAX_KEY_TERMS:
        j.drop("over_max_key_terms", len(terms) - MAX_KEY_TERMS)
    units += [_paper_row("key_term", t) for t in terms[:MAX_KEY_TERMS]]
    if not p.contributions:
        j.null_reason = "no_contributions"
    return units


def _paper_row(kind: str, text: str, name=None, claim=None, description=None) -> dict:
    return {"kind": kind, "text": text, "name": name, "claim": claim, "description": description}


def _text(v) -> str:
    return " ".join(v.split()) if isinstance(v, str) else ""


def _inherit(j: Judgment, p: _Paper) -> None:
    """A review is judged against its paper's extraction: no extraction, no judgment."""
    if p.judgment.failed_call is not None:
        j.failed_call = f"paper: {p.judgment.failed_call}"
    elif p.judgment.null_reason is not None:
        j.null_reason = f"paper:{p.judgment.null_reason}"
    else:
        j.results.append(p.result)  # the queries come from it: a new extraction is a new judgment


# ---- step claims ---------------------------------------------------------------------------------

def _extract_claims(ctx: JudgeContext, jobs: list[_Review], max_claims: int | None) -> None:
    texts = [judged_text(job.review, ctx.cfg.provider) for job in jobs]
    reqs = [_claims_request(ctx, job.review.review_key, text, max_claims)
            for job, text in zip(jobs, texts, strict=True)]
    for job, text, res in zip(jobs, texts, ctx.call_many(reqs, "novelty: claims") if reqs else [], strict=True):
        j = job.judgment
        j.inputs["chars_seen"] = len(text)
        j.inputs["max_claims"] = max_claims
        if isinstance(res, BaseException):
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        if doc is None or not isinstance(doc.get("claims"), list):
            j.null_reason = "unparseable:claims"
            continue
        j.inputs["claims_answered"] = len(doc["claims"])
        job.claims = _claims(doc["claims"], text, j, max_claims)
        if not job.claims:
            j.null_reason = "no_claims"


def _claims_request(ctx: JudgeContext, subject: str, text: str, cap: int | None):
    """Under a cap the schema allows one claim more than the cap (so a claim beyond it is seen and
    counted) and the budget is that answer's; without one the schema is unbounded and the budget
    follows the review's length."""
    cfg = ctx.cfg
    if cap is not None:
        tokens = CLAIM_TOKENS_FIXED + CLAIM_TOKENS * (cap + 1)
    else:
        tokens = max(CLAIM_TOKENS_FIXED + len(text) // 3 + 40 * (len(text) // 300 + 1), cfg.max_output_tokens)
        cfg = dataclasses.replace(cfg, max_output_tokens=tokens)  # params() would cut it to the configured one
    req = judge_request(cfg, "novelty", "claims", "judge_novelty_claims", subject_id=subject, repeat=ctx.repeat,
                        max_tokens=tokens, review_text=text, max_claims=cap)
    return dataclasses.replace(req, response_schema=claims_schema(req.response_schema, cap))


def claims_schema(schema: dict, cap: int | None) -> dict:
    """The claims schema for one request: at most cap + 1 claims under a cap; as it is (no maxItems) without."""
    if cap is None:
        return schema
    out = copy.deepcopy(schema)
    out["properties"]["claims"]["maxItems"] = cap + 1
    return out


def _claims(items: list, text: str, j: Judgment, max_claims: int | None) -> list[dict]:
    """The verbatim claims, in the judge's (review) order; spans are looked up in the text it read."""
    out, seen = [], set()
    for item in items:
        span = verbatim_span(item["text"], text) if isinstance(item, dict) and isinstance(
            item.get("text"), str) else None
        if span is None:
            j.drop("not_verbatim")
            continue
        if span in seen:
            j.drop("duplicate")  # the same words twice are one claim
            continue
        seen.add(span)
        if max_claims is not None and len(out) >= max_claims:
            j.drop("over_max_claims")
            continue
        stance = item.get("stance")
        if stance not in STANCES:
            j.drop("stance_unclear")  # counted, the claim kept as "unclear"
            stance = "unclear"
        prior = item.get("prior_work")
        out.append({"text": span[1], "stance": stance,
                    "prior_work": [w for w in map(_text, prior) if w] if isinstance(prior, list) else []})
    return out


def _search(ctx: JudgeContext, papers: dict[str, _Paper], jobs: list[_Review], opts: dict) -> None:
    """One search per contribution of every paper that has a review with claims; the pools."""
    wanted = [papers[pid] for pid in sorted({job.review.paper_id for job in jobs})]
    reqs, owner = [], []
    for p in wanted:
        for name in p.contributions:
            query = " ".join((p.core_task.split() + name.split())[:QUERY_WORDS])
            reqs.append(RetrievalRequest(backend=str(opts["retrieval"]), query=query,
                                         limit=int(opts["retrieval_limit"]), year_max=p.year,
                                         purpose="judge_novelty_retrieval", subject_id=f"paper:{p.paper_id}",
                                         study=ctx.study))
            owner.append(p)
    for p, res in zip(owner, _client(ctx).search_many(reqs, return_exceptions=True) if reqs else [], strict=True):
        p.searches.append(res)
    for p in wanted:
        if not any(isinstance(r, BaseException) for r in p.searches):
            p.pool, stats = build_pool([r.candidates for r in p.searches], p.paper_id, p.title, p.year,
                                       relevance=str(opts["relevance"]))
            p.pool_stats = stats.as_dict()
    for job in jobs:
        p, j = papers[job.review.paper_id], job.judgment
        j.inputs.update(retrieval=str(opts["retrieval"]), relevance=str(opts["relevance"]),
                        queries=[r.query for r, o in zip(reqs, owner, strict=True) if o is p])
        failed = [r for r in p.searches if isinstance(r, BaseException)]
        if failed:
            j.failed_call = f"retrieval: {type(failed[0]).__name__}: {failed[0]}"
            continue
        j.results.extend(p.searches)
        j.inputs["pool"] = p.pool_stats


def _client(ctx: JudgeContext):
    if ctx.retrieval is None:  # the judgments asset passes one; a caller without one gets the lake's
        ctx.retrieval = RetrievalClient(ctx.log)
    return ctx.retrieval


def _verify(ctx: JudgeContext, papers: dict[str, _Paper], jobs: list[_Review], verify_top: int) -> None:
    # Candidate-major: consecutive prompts share the paper and the candidate as a prefix, which the
    # local model's prompt cache reuses (the claim comes last in the template).
    reqs, slots = [], []
    for job in jobs:
        p = papers[job.review.paper_id]
        job.top = most_relevant(p.pool or [], verify_top)
        job.judgment.inputs["verify_top"] = verify_top
        for c, cand in enumerate(job.top):
            for i, claim in enumerate(job.claims):
                reqs.append(judge_request(
                    ctx.cfg, "novelty", "verify", "judge_novelty_verify", subject_id=job.review.review_key,
                    repeat=ctx.repeat, max_tokens=MAX_TOKENS["verify"], claim=claim["text"], stance=claim["stance"],
                    paper_context=p.context, candidate_title=cand.title or "(untitled)",
                    candidate_abstract=fit_text(cand.abstract or "(no abstract)", CANDIDATE_ABSTRACT_CHARS)))
                slots.append((job, i, c))
    for (job, i, c), res in zip(slots, ctx.call_many(reqs, "novelty: verify") if reqs else [], strict=True):
        job.verify[i, c] = res
    for job in jobs:
        failed = [r for r in job.verify.values() if isinstance(r, BaseException)]
        if failed:
            job.judgment.failed_call = f"verify: {type(failed[0]).__name__}: {failed[0]}"
        else:
            job.judgment.results.extend(job.verify.values())


def _rows(job: _Review) -> list[dict]:
    """One row per (claim, candidate), claim by claim, candidates most relevant first; a claim with an
    empty pool is one row with reason no_candidates."""
    rows = []
    for i, claim in enumerate(job.claims):
        base = {"claim_index": i, "claim_text": claim["text"], "stance": claim["stance"],
                "prior_work": claim["prior_work"]}
        if not job.top:
            rows.append({**base, "candidate_id": None, "candidate_title": None, "candidate_year": None,
                         "pool_rank": None, "relevance": None, "verdict": None, "reason": "no_candidates"})
            continue
        for c, cand in enumerate(job.top):
            doc = answer(job.verify[i, c])
            label = doc.get("label") if doc else None
            verdict = label.strip().upper() if isinstance(label, str) and label.strip().upper() in VERDICTS else None
            rows.append({**base, "candidate_id": cand.candidate_id, "candidate_title": cand.title,
                         "candidate_year": cand.year, "pool_rank": cand.pool_rank, "relevance": cand.relevance,
                         "verdict": verdict, "reason": None if verdict else "verdict_unparseable"})
    return rows


# ---- what the bias probes compare (judging.probes): as int_quality_novelty_claims counts claims ----
PROBE_TOLERANCE = {"n_claims": 1.0}


def probe_measures(step: str, units: list[dict], inputs: dict) -> dict[str, float]:
    return {"n_claims": float(len({u.get("claim_index") for u in units}))} if step == REVIEW_STEP else {}
