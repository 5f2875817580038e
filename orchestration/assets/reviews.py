"""AI reviews, one partition per study: every (paper, reviewer configuration, sample) the study asks
for, through the LLM gateway. Calls another study already paid for replay at no cost."""

from dataclasses import dataclass

from dagster import AssetIn, AssetKey, DataVersion, DynamicOut, In, Nothing, OpExecutionContext, Out, graph_asset, op

from peerlake.costs.estimate import request_rows
from peerlake.orchestration.assets.budget import budget_metadata, is_refused, record_estimate
from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.units import (
    UNIT_RETRY,
    chunks,
    emit_units,
    materialization,
    seal_unit,
    unit_calls,
    unit_size,
)
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.reviewing.scoring import ReviewerConfig, review_requests
from peerlake.studies import StudyError, record_resolution, with_study
from peerlake.warehouse import settings

# The code version is the default reviewer configuration's hash (template text + model + parameters
# + output schema): editing the prompt marks exactly this asset and what depends on it stale.
REVIEWER_CODE_VERSION = ReviewerConfig.default().code_version()
# The experiments' manuscripts (orchestration.assets.experiments.paper_variants, which imports this
# module): made before the reviewers read the study's papers.
VARIANTS = AssetKey("paper_variants")


def keep_results(context, what: str, requests, outcomes) -> list:
    """A failed call is already an event (status=error): log it, keep the others, fail only if all did.
    A call the cost cap refused is left undone, not failed (left_undone counts them)."""
    failed = [(req, exc) for req, exc in zip(requests, outcomes, strict=True)
              if isinstance(exc, BaseException) and not is_refused(exc)]
    for req, exc in failed:
        context.log.error(f"{what} of {req.subject_id} sample {req.sample_index} failed: {exc}")
    results = [r for r in outcomes if not isinstance(r, BaseException)]
    if requests and len(failed) == len(requests):
        raise RuntimeError(f"all {len(requests)} {what}s failed; first error: {failed[0][1]}")
    return results


def left_undone(outcomes) -> int:
    return sum(1 for o in outcomes if is_refused(o))


def study_papers(context, study, resolution):
    """The study's paper ids and the manuscripts (newest versions) a reviewer can read."""
    if resolution.missing:
        context.log.warning(f"study {study.name}: {len(resolution.missing)} selected papers are unknown to "
                            f"the lake: {', '.join(resolution.missing[:10])}")
    unreadable = sorted(set(resolution.paper_ids) - set(resolution.reviewable))
    if unreadable and study.reviewers:
        context.log.warning(f"study {study.name}: {len(unreadable)} papers have no ingested manuscript and "
                            f"are not reviewed: {', '.join(unreadable[:10])}")
    if study.reviewers and not resolution.manuscripts:
        raise StudyError(f"study {study.name!r} covers no ingested manuscript ({study.paper_source()}); "
                         "ingest PDFs with `peerlake ingest pdf DIR` or change the study's [papers]")
    return resolution.paper_ids, resolution.manuscripts


@dataclass(frozen=True)
class ReviewPlan:
    paper_ids: tuple[str, ...]
    n_requests: int


@dataclass(frozen=True)
class ReviewsDone:
    """What a unit made: (request_key, event_id, made_in_run, cost_usd) per result, and what it did not.
    made_in_run is the gateway's (LlmResult.made_in_run): the progress line counts the same."""

    results: tuple[tuple[str, str, bool, float], ...]
    failed: int
    undone: int


@op(ins={"after": In(Nothing)}, out={"units": DynamicOut(), "plan": Out()})
def ai_reviews_plan(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource):
    """Every request of the study, in units of a few (a batch study's requests stay one unit: one batch)."""
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    paper_ids, papers = study_papers(context, study, lake.resolve(log, study))
    configs = study.reviewer_configs()
    requests = with_study([req for cfg in configs for paper in papers
                           if cfg.covers(paper.paper_id) for req in review_requests(log, paper, cfg)], study)
    gateway = reviewer.gateway(log)
    record_estimate(context, log, study, lambda hist: request_rows("ai_reviews", requests, gateway, hist))
    size = 0 if study.costs.batch else unit_size(context)
    yield from emit_units(chunks(requests, size),
                          ReviewPlan(paper_ids=tuple(paper_ids), n_requests=len(requests)))


@op(retry_policy=UNIT_RETRY)
def ai_reviews_unit(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
                    requests: list) -> ReviewsDone:
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    gateway = reviewer.gateway(log)
    if not requests:
        return ReviewsDone((), 0, 0)
    with unit_calls(context, study, "ai_reviews"):
        if study.costs.batch:  # half price through the provider's batch API; waits, resumable (llm_calls.batch)
            from peerlake.llm_calls.batch import BatchRunner

            wait = settings.batch_wait()
            outcomes = BatchRunner(gateway, poll_interval_s=wait.poll_interval_s,
                                   max_wait_s=wait.max_wait_s).call_many(requests)
        else:
            outcomes = gateway.call_many(requests, description=f"AI reviews ({study.name})",
                                         return_exceptions=True)
    seal_unit(log)
    failed = [(req, exc) for req, exc in zip(requests, outcomes, strict=True)
              if isinstance(exc, BaseException) and not is_refused(exc)]
    for req, exc in failed:
        context.log.error(f"review of {req.subject_id} sample {req.sample_index} failed: {exc}")
    results = [r for r in outcomes if not isinstance(r, BaseException)]
    return ReviewsDone(tuple((r.request_key, r.event_id, bool(r.made_in_run), float(r.cost_usd or 0.0))
                             for r in results),
                       failed=len(failed), undone=left_undone(outcomes))


@op(out=Out(Nothing))
def ai_reviews_collect(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
                       plan: ReviewPlan, done: list):
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    configs = study.reviewer_configs()
    record_resolution(log, study, list(plan.paper_ids), configs, asset="ai_reviews")
    log.seal()
    results = [r for d in done for r in d.results]
    undone = sum(d.undone for d in done)
    failed = sum(d.failed for d in done)
    if plan.n_requests and failed == plan.n_requests:
        raise RuntimeError(f"all {plan.n_requests} reviews failed (see the units' errors)")
    made = sum(made_in_run for _, _, made_in_run, _ in results)
    context.log.info(f"{len(results)} reviews: {made} model calls made, {len(results) - made} replayed, "
                     f"{failed} failed, {undone} left undone (cost cap)")
    gateway = reviewer.gateway(log)
    return materialization(
        {"study": study.name, "study_sha256": study.sha256, "papers": len(plan.paper_ids),
         "reviews": len(results), "model_calls_made": made, "failed": failed,
         "replayed": len(results) - made, **budget_metadata(context, study, gateway, undone),
         "reviewer_configs": ", ".join(c.code_version() for c in configs),
         "cost_usd": float(sum(cost for _, _, made_in_run, cost in results if made_in_run))},
        DataVersion(content_version([(key, event_id) for key, event_id, _, _ in results])))


@graph_asset(group_name="reviews", ins={"manuscripts": AssetIn(manuscripts.key, dagster_type=Nothing),
                                        "paper_variants": AssetIn(VARIANTS, dagster_type=Nothing)},
             code_version=REVIEWER_CODE_VERSION, kinds={"llm"}, partitions_def=studies,
             description="K independent AI reviews per paper of the study → llm_call events (replayed when already "
                         "made); one step per unit of requests (PEERLAKE_UNIT_SIZE), so executors spread them.")
def ai_reviews(manuscripts, paper_variants):
    units, plan = ai_reviews_plan(after=[manuscripts, paper_variants])
    return ai_reviews_collect(plan, units.map(ai_reviews_unit).collect())
