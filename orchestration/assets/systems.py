"""Reviewer systems, one partition per study: every (paper, system configuration, sample) the study
asks for, each a chain of model calls (reviewing.systems) ending in one `system_review` event.
A second run replays every call and writes nothing."""

import hashlib
import json
from dataclasses import dataclass

from dagster import AssetIn, DataVersion, DynamicOut, In, Nothing, OpExecutionContext, Out, graph_asset, op

from peerlake.orchestration.assets.budget import budget_metadata, record_estimate
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.reviews import VARIANTS, study_papers
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
from peerlake.reviewing.systems.base import SystemReviewRecorder, run_systems
from peerlake.reviewing.systems.runs import system_runs
from peerlake.studies import record_resolution


def _systems_code_version() -> str:
    """Every system's code version and the hashes of the templates its default options use: editing a
    system's template marks this asset stale in the UI (a study's own options may use more templates)."""
    from peerlake.prompts import load_template
    from peerlake.reviewing.systems import SYSTEMS, get_system

    parts = []
    for name in SYSTEMS:
        impl = get_system(name)
        parts.append([name, impl.version, [load_template(t).hash for t in impl.templates(dict(impl.defaults))]])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SystemsPlan:
    paper_ids: tuple[str, ...]
    skipped: bool  # the study names no reviewer system


@dataclass(frozen=True)
class SystemsDone:
    """What a unit made. `outcomes`: (system, review_key or None, recorded, null_reason, failed, refused)."""

    outcomes: tuple[tuple[str, str | None, bool, str | None, bool, bool], ...]
    written: int
    skipped: int
    made: int
    cost_usd: float
    first_failure: str | None


@op(ins={"after": In(Nothing)}, out={"units": DynamicOut(), "plan": Out()})
def system_reviews_plan(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource):
    """Every (paper, system configuration, sample) run of the study, in units of a few."""
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    configs = study.system_configs()
    if not configs:
        context.log.info(f"study {study.name} names no reviewer system")
        yield from emit_units([], SystemsPlan((), skipped=True))
        return
    paper_ids, papers = study_papers(context, study, lake.resolve(log, study))
    runs = system_runs(log, papers, configs, study=study.name)
    gateway = reviewer.gateway(log)
    record_estimate(context, log, study, lambda hist: _estimate_rows(runs, gateway, hist))
    yield from emit_units(chunks(runs, unit_size(context)), SystemsPlan(tuple(paper_ids), skipped=False))


@op(retry_policy=UNIT_RETRY)
def system_reviews_unit(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
                        runs: list) -> SystemsDone:
    if not runs:
        return SystemsDone((), 0, 0, 0, 0.0, None)
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    gateway = reviewer.gateway(log)
    before = gateway.stats.snapshot()
    with unit_calls(context, study, "system_reviews"):
        outcomes = run_systems(gateway, runs)
    recorder = SystemReviewRecorder(log, study=study.name)
    for outcome in outcomes:
        recorder.record(outcome)
    seal_unit(log)
    failed = [o for o in outcomes if o.failed_call is not None and not o.refused]
    nulls = [o for o in outcomes if o.recorded and o.null_reason is not None]
    for o in failed[:20]:
        context.log.error(f"{o.run.cfg.system} on {o.run.paper_id} (sample {o.run.sample}) not finished: "
                          f"{o.failed_call}")
    for o in nulls[:20]:
        context.log.warning(f"{o.run.cfg.system} on {o.run.paper_id} (sample {o.run.sample}): null review "
                            f"({o.null_reason})")
    return SystemsDone(
        tuple((o.run.cfg.system, o.event.review_key if o.event is not None else None, bool(o.recorded),
               o.null_reason, o.failed_call is not None and not o.refused, bool(o.refused)) for o in outcomes),
        written=recorder.written, skipped=recorder.skipped, made=gateway.stats.made_in_run - before.made_in_run,
        cost_usd=float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd),
        first_failure=str(failed[0].failed_call) if failed else None)


@op(out=Out(Nothing))
def system_reviews_collect(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
                           plan: SystemsPlan, done: list):
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    if plan.skipped:
        return materialization({"study": study.name, "skipped": "no reviewer system in the study"}, None)
    configs = study.system_configs()
    record_resolution(log, study, list(plan.paper_ids), configs, asset="system_reviews")
    log.seal()
    outcomes = [o for d in done for o in d.outcomes]
    failed = [o for o in outcomes if o[4]]
    undone = sum(1 for o in outcomes if o[5])
    nulls = [o for o in outcomes if o[2] and o[3] is not None]
    if outcomes and len(failed) == len(outcomes):
        first = next(d.first_failure for d in done if d.first_failure)
        raise RuntimeError(f"every system review failed; first: {first}")
    made = sum(d.made for d in done)
    written, skipped = sum(d.written for d in done), sum(d.skipped for d in done)
    per_system: dict[str, int] = {}
    for system, _, recorded, null_reason, _, _ in outcomes:
        if recorded and null_reason is None:
            per_system[system] = per_system.get(system, 0) + 1
    context.log.info(f"{len(outcomes)} system reviews: {written} new, {skipped} already "
                     f"recorded, {len(nulls)} null with a reason, {len(failed)} failed, {undone} left undone "
                     f"(cost cap); {made} model calls made")
    keys = sorted(o[1] for o in outcomes if o[1] is not None)
    gateway = reviewer.gateway(log)
    return materialization(
        {"study": study.name, "papers": len(plan.paper_ids), "system_reviews": len(outcomes),
         "new_reviews": written, "null_reviews": len(nulls), "failed": len(failed),
         "model_calls_made": made, "reviews_per_system": json.dumps(per_system, sort_keys=True),
         "system_configs": ", ".join(f"{c.system}={c.identity()}" for c in configs),
         "cost_usd": float(sum(d.cost_usd for d in done)),
         **budget_metadata(context, study, gateway, undone)},
        DataVersion(hashlib.sha256(json.dumps(keys).encode()).hexdigest()[:16]))


@graph_asset(group_name="reviews", ins={"manuscripts": AssetIn(manuscripts.key, dagster_type=Nothing),
                                        "paper_variants": AssetIn(VARIANTS, dagster_type=Nothing)},
             kinds={"llm"}, partitions_def=studies, code_version=_systems_code_version(),
             description="The study's reviewer systems (MLR, LLM-Review, AI Scientist, AgentReview ...) on its "
                         "papers → "
                         "llm_call events per step and one system_review event per (paper, system, sample); one step "
                         "per unit of runs (PEERLAKE_UNIT_SIZE), so executors spread them.")
def system_reviews(manuscripts, paper_variants):
    units, plan = system_reviews_plan(after=[manuscripts, paper_variants])
    return system_reviews_collect(plan, units.map(system_reviews_unit).collect())


def _estimate_rows(runs, gateway, hist) -> list[dict]:
    from peerlake.costs.systems import system_rows

    return system_rows(runs, gateway, hist)
