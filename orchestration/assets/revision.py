"""The revision crossover (reviewing.revision), one partition per study with [revision].

- `revision_manuscripts`: per paper and Writer, the feedback review and the Writer's edits; per
  Selector, its decisions; the validators; the final manuscript (a paper variant of kind revision).
  One `revision_outcome` event per (paper, Writer, Selector), ok or blocked with the reason.
- `revision_scores`: each Scorer's `repeats` standard reviews of every original (shared by its cells)
  and of every final manuscript its cells score. Blocked papers are not scored.

Both record a `study_resolved` event naming what they covered; the marts scope by it."""

import hashlib
import json

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, asset

from peerlake.ingest.manuscripts import latest_versions
from peerlake.ingest.variants import recorded_variants
from peerlake.orchestration.assets.attribution import calls_of
from peerlake.orchestration.assets.budget import budget_metadata
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.reviews import ai_reviews
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.prompts import load_template
from peerlake.reviewing.revision.crossover import revise, scoring_requests
from peerlake.reviewing.revision.roles import SELECTOR, WRITER
from peerlake.studies import record_resolution, with_study

MANUSCRIPTS_ASSET = "revision_manuscripts"
SCORES_ASSET = "revision_scores"
CODE_VERSION = hashlib.sha256(json.dumps([load_template(t).hash for t in (WRITER, SELECTOR, "reviewer_scoring")])
                              .encode()).hexdigest()[:16]


def _study(context, lake: LakeResource):
    """(log, study, its RevisionSpec or None) for this partition."""
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    return log, study, study.revision()


def _skipped(study) -> MaterializeResult:
    return MaterializeResult(metadata={"study": study.name, "skipped": "the study has no [revision]"})


def _originals(log, study, spec, resolution) -> tuple[list[str], list]:
    """The study's papers the crossover revises: readable, no experiment's variant, in [revision] papers."""
    variants = {v.variant_id for v in recorded_variants(log).values()}
    papers = [m for m in resolution.manuscripts if m.paper_id not in variants and spec.covers(m.paper_id)]
    return resolution.paper_ids, papers


def _caller(context, gateway, study):
    def call_many(requests, description):
        with calls_of(context, study):
            return gateway.call_many(with_study(requests, study), description=f"{description} ({study.name})",
                                     return_exceptions=True)
    return call_many


@asset(group_name="revision", deps=[ai_reviews], code_version=CODE_VERSION, kinds={"llm"}, partitions_def=studies,
       op_tags={"peerlake/judge": "serial"},
       description="Revision crossover, manuscript side: feedback review → Writer → block diffs → Selectors → "
                   "validators → final manuscript → revision_outcome events (nothing without [revision]).")
def revision_manuscripts(context: AssetExecutionContext, lake: LakeResource,
                         reviewer: ReviewerResource) -> MaterializeResult:
    log, study, spec = _study(context, lake)
    if spec is None:
        return _skipped(study)
    paper_ids, papers = _originals(log, study, spec, lake.resolve(log, study))
    gateway = reviewer.gateway(log)
    before = gateway.stats.snapshot()
    outcomes = revise(log, _caller(context, gateway, study), papers, spec, study.name)
    record_resolution(log, study, paper_ids, [], asset=MANUSCRIPTS_ASSET,
                      judges=[{"revision_spec": spec.identity,
                               "outcome_keys": sorted(o.outcome_key for o in outcomes)}])
    log.seal()
    blocked: dict[str, int] = {}
    for o in outcomes:
        if o.status != "ok":
            blocked[o.blocked_reason or "?"] = blocked.get(o.blocked_reason or "?", 0) + 1
    if blocked:
        context.log.warning(f"revision: {sum(blocked.values())} of {len(outcomes)} paper conditions blocked: {blocked}")
    made = gateway.stats.made_in_run - before.made_in_run
    n_ok = len(outcomes) - sum(blocked.values())
    context.log.info(f"revision: {len(papers)} papers, {len(outcomes)} outcomes ({n_ok} ok); {made} model calls made")
    return MaterializeResult(
        metadata={"study": study.name, "papers": len(papers), "outcomes": len(outcomes),
                  "blocked": json.dumps(blocked, sort_keys=True), "model_calls_made": made,
                  "diffs": sum(o.n_candidates for o in outcomes), "accepted": sum(o.n_accepted for o in outcomes),
                  "cost_usd": float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd),
                  **budget_metadata(context, study, gateway, gateway.stats.refused_calls - before.refused_calls)},
        data_version=DataVersion(hashlib.sha256(json.dumps(sorted(o.outcome_key for o in outcomes)).encode())
                                 .hexdigest()[:16]))


def newest_outcomes(log, study_name: str) -> list:
    """The outcomes the study's newest `revision_manuscripts` run made (what the Scorers read)."""
    runs = [e for e in log.iter_events("study_resolved") if e.study_id == study_name and e.asset == MANUSCRIPTS_ASSET]
    if not runs:
        return []
    keys = set(json.loads(max(runs, key=lambda e: e.occurred_at).judges_json)[0]["outcome_keys"])
    by_key = {e.outcome_key: e for e in log.iter_events("revision_outcome") if e.outcome_key in keys}
    return [by_key[k] for k in sorted(by_key)]


@asset(group_name="revision", deps=[revision_manuscripts], code_version=CODE_VERSION, kinds={"llm"},
       partitions_def=studies,
       description="Revision crossover, Scorer side: each Scorer's standard reviews (repeats per side) of the "
                   "originals and of the final manuscripts its cells score → llm_call events.")
def revision_scores(context: AssetExecutionContext, lake: LakeResource,
                    reviewer: ReviewerResource) -> MaterializeResult:
    log, study, spec = _study(context, lake)
    if spec is None:
        return _skipped(study)
    paper_ids, papers = _originals(log, study, spec, lake.resolve(log, study))
    outcomes = newest_outcomes(log, study.name)
    requests = scoring_requests(log, spec, papers, outcomes, latest_versions(log))
    gateway = reviewer.gateway(log)
    before = gateway.stats.snapshot()
    results = _caller(context, gateway, study)(requests, "revision: Scorers")
    failed = [r for r in results if isinstance(r, BaseException)]
    for exc in failed[:10]:
        context.log.error(f"scorer call failed: {exc}")
    if requests and len(failed) == len(requests):
        raise RuntimeError(f"every Scorer call failed; first: {failed[0]}")
    configs = [spec.scorer_config(letter) for letter in spec.scorers]
    record_resolution(log, study, paper_ids, configs, asset=SCORES_ASSET, judges=[
        {"cell": c, "writer": c[0], "selector": c[1], "scorer": c[2], "scorer_model": spec.model(c[2]).label,
         "scorer_config": spec.scorer_config(c[2]).code_version(), "repeats": spec.repeats,
         "revision_spec": spec.identity} for c in spec.cells])
    log.seal()
    made = gateway.stats.made_in_run - before.made_in_run
    context.log.info(f"revision: {len(requests)} Scorer reviews ({made} model calls made, {len(failed)} failed)")
    return MaterializeResult(
        metadata={"study": study.name, "scorer_reviews": len(requests), "model_calls_made": made,
                  "failed": len(failed), "cells": ", ".join(spec.cells),
                  "cost_usd": float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd),
                  **budget_metadata(context, study, gateway, gateway.stats.refused_calls - before.refused_calls)},
        data_version=DataVersion(hashlib.sha256(json.dumps(sorted(r.request_key for r in requests)).encode())
                                 .hexdigest()[:16]))
