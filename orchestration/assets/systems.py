"""Reviewer systems, one partition per study: every (paper, system configuration, sample) the study
asks for, each a chain of model calls (reviewing.systems) ending in one `system_review` event.
A second run replays every call and writes nothing."""

import hashlib
import json

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, asset

from orchestration.assets.attribution import calls_of
from orchestration.assets.budget import budget_metadata, record_estimate
from orchestration.assets.ingest import manuscripts
from orchestration.assets.partitions import studies, study_of
from orchestration.assets.reviews import VARIANTS, study_papers
from orchestration.resources import LakeResource, ReviewerResource
from reviewing.study import load_study, record_resolution
from reviewing.systems.base import SystemReviewRecorder, run_systems
from reviewing.systems.runs import system_runs


def _systems_code_version() -> str:
    """Every system's code version and the hashes of the templates its default options use: editing a
    system's template marks this asset stale in the UI (a study's own options may use more templates)."""
    from prompts import load_template
    from reviewing.systems import SYSTEMS, get_system

    parts = []
    for name in SYSTEMS:
        impl = get_system(name)
        parts.append([name, impl.version, [load_template(t).hash for t in impl.templates(dict(impl.defaults))]])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


@asset(group_name="reviews", deps=[manuscripts, VARIANTS], kinds={"llm"}, partitions_def=studies,
       code_version=_systems_code_version(),
       description="The study's reviewer systems (MLR, LLM-Review, AI Scientist, AgentReview ...) on its papers → "
                   "llm_call events per step and one system_review event per (paper, system, sample).")
def system_reviews(context: AssetExecutionContext, lake: LakeResource, reviewer: ReviewerResource) -> MaterializeResult:
    log = lake.event_log()
    study = load_study(log, study_of(context))
    configs = study.system_configs()
    if not configs:
        context.log.info(f"study {study.name} names no reviewer system")
        return MaterializeResult(metadata={"study": study.name, "skipped": "no reviewer system in the study"})
    paper_ids, papers = study_papers(context, log, study)
    runs = system_runs(log, papers, configs, study=study.name)
    gateway = reviewer.gateway(log)
    record_estimate(context, log, study, lambda hist: _estimate_rows(runs, gateway, hist))
    before = gateway.stats.snapshot()
    with calls_of(context, study):
        outcomes = run_systems(gateway, runs)
    recorder = SystemReviewRecorder(log, study=study.name)
    for outcome in outcomes:
        recorder.record(outcome)
    record_resolution(log, study, paper_ids, configs, asset="system_reviews")
    log.seal()
    failed = [o for o in outcomes if o.failed_call is not None and not o.refused]
    undone = sum(1 for o in outcomes if o.refused)
    nulls = [o for o in outcomes if o.recorded and o.null_reason is not None]
    for o in failed[:20]:
        context.log.error(f"{o.run.cfg.system} on {o.run.paper_id} (sample {o.run.sample}) not finished: "
                          f"{o.failed_call}")
    for o in nulls[:20]:
        context.log.warning(f"{o.run.cfg.system} on {o.run.paper_id} (sample {o.run.sample}): null review "
                            f"({o.null_reason})")
    if outcomes and len(failed) == len(outcomes):
        raise RuntimeError(f"every system review failed; first: {failed[0].failed_call}")
    made = gateway.stats.calls_made - before.calls_made
    per_system: dict[str, int] = {}
    for o in outcomes:
        if o.recorded and o.null_reason is None:
            per_system[o.run.cfg.system] = per_system.get(o.run.cfg.system, 0) + 1
    context.log.info(f"{len(outcomes)} system reviews: {recorder.written} new, {recorder.skipped} already "
                     f"recorded, {len(nulls)} null with a reason, {len(failed)} failed, {undone} left undone "
                     f"(cost cap); {made} model calls made")
    keys = sorted(o.event.review_key for o in outcomes if o.event is not None)
    return MaterializeResult(
        metadata={"study": study.name, "papers": len(paper_ids), "system_reviews": len(outcomes),
                  "new_reviews": recorder.written, "null_reviews": len(nulls), "failed": len(failed),
                  "model_calls_made": made, "reviews_per_system": json.dumps(per_system, sort_keys=True),
                  "system_configs": ", ".join(f"{c.system}={c.identity()}" for c in configs),
                  "cost_usd": float(gateway.stats.cost_usd - before.cost_usd),
                  **budget_metadata(context, study, gateway, undone)},
        data_version=DataVersion(hashlib.sha256(json.dumps(keys).encode()).hexdigest()[:16]))


def _estimate_rows(runs, gateway, hist) -> list[dict]:
    from metrics.costs.systems import system_rows

    return system_rows(runs, gateway, hist)
