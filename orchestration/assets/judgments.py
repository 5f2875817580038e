"""Judgments, one partition per study: each PRISM judge the study names reads the study's reviews
(human, peerlake, imported) through the LLM gateway and records what it extracted as
`judgment_recorded` events; `judgments` then records which reviews each judge covered, and the dbt
marts compute every score from the units. Judge calls another study already paid for replay free."""

import hashlib
import json
from dataclasses import dataclass

from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    DataVersion,
    DynamicOut,
    In,
    MaterializeResult,
    Nothing,
    OpExecutionContext,
    Out,
    asset,
    graph_asset,
    op,
)

from peerlake.costs.plan import judge_estimate
from peerlake.judging.base import JudgeConfig, JudgeContext, Recorder
from peerlake.judging.registry import coverage_for, judges, options_for, resources_for
from peerlake.judging.reviews import JudgedReview, external_reviews, human_reviews, peerlake_reviews, system_reviews
from peerlake.orchestration.assets.budget import REFUSED, budget_metadata, record_estimate
from peerlake.orchestration.assets.ingest import human_reviews as human_reviews_asset
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.reviews import ai_reviews
from peerlake.orchestration.assets.systems import system_reviews as system_reviews_asset
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
from peerlake.studies import JudgingSpec, Resolution, Study, record_resolution, resolve_papers
from peerlake.studies.spec import JudgeMember

MODULES = judges()  # judge name -> module, found in judging/ (judging.registry)
JUDGES = tuple(MODULES)


def judge_panel(spec: JudgingSpec) -> list[tuple[JudgeMember, JudgeConfig]]:
    """The study's judge configurations, the primary first: a [[judging.panel]]'s members, or without one
    the [judging] table's alone (label None, the identity it had before panels)."""
    return [(m, JudgeConfig(**m.settings)) for m in spec.members()]


def judge_config(spec: JudgingSpec) -> JudgeConfig:
    """The primary judge's configuration. The bias probes (orchestration/judge_probes.py) run on it alone:
    a probe measures one judge's bias, and a panel's other members would multiply their calls."""
    return judge_panel(spec)[0][1]


def judged_reviews(log, study: Study, resolution: Resolution | None = None) -> tuple[list[str], list[JudgedReview]]:
    """The study's paper ids, and the reviews its judges read ([judging] narrows both)."""
    spec = study.judging
    paper_ids = (resolution or resolve_papers(log, study)).paper_ids
    judged = [p for p in paper_ids if not spec.papers or p in spec.papers]
    reviews: list[JudgedReview] = []
    if "human" in spec.sources:
        per_paper: dict[str, int] = {}
        for r in human_reviews(log, judged):  # in review-id order
            per_paper[r.paper_id] = per_paper.get(r.paper_id, 0) + 1
            if spec.human_per_paper is None or per_paper[r.paper_id] <= spec.human_per_paper:
                reviews.append(r)
    if "peerlake" in spec.sources and study.reviewers:
        samples = {c.code_version(): min(c.samples, spec.peerlake_samples or c.samples)
                   for c in study.reviewer_configs()}
        reviews += peerlake_reviews(log, judged, samples, samples=samples)
        systems = {c.identity(): min(c.samples, spec.peerlake_samples or c.samples) for c in study.system_configs()}
        if systems:
            reviews += system_reviews(log, judged, systems)
    if "external" in spec.sources and study.external_systems:
        reviews += external_reviews(log, judged, study.external_systems)
    if spec.reviews:
        wanted = set(spec.reviews)
        reviews = [r for r in reviews if r.review_key in wanted]
    return paper_ids, reviews


def _code_version(judge: str) -> str:
    """The default judge configuration's identity: editing a judge's template marks it stale."""
    return judge_config(JudgingSpec()).identity(judge, MODULES[judge].TEMPLATES)


@dataclass(frozen=True)
class JudgePlan:
    n_reviews: int
    skipped: bool  # the study does not name this judge


@dataclass(frozen=True)
class JudgmentsDone:
    """What a unit made: (subject_key, repeat, null_reason, failed_call) per judgment, and counters; with a
    judge panel, `labels` names each key's member and `members` has (label, written, skipped, made, cost_usd)."""

    keys: tuple[tuple[str, int, str | None, str | None], ...]
    written: int
    skipped: int
    made: int
    cost_usd: float
    refused: int
    labels: tuple[str | None, ...] = ()
    members: tuple[tuple[str | None, int, int, int, float], ...] = ()


def _panel_metadata(study: Study, judge: str, done: list) -> dict:
    """Per panel member (the primary first): its judge_config, model and what its judgments came to."""
    out = {}
    for member, cfg in judge_panel(study.judging):
        keys = [k for d in done for label, k in zip(d.labels, d.keys, strict=True) if label == member.label]
        counts = [m for d in done for m in d.members if m[0] == member.label]
        out[member.label] = {
            "judge_config": cfg.identity(judge, MODULES[judge].TEMPLATES), "model": f"{cfg.provider}/{cfg.model}",
            "is_primary": member.is_primary, "judgments": len(keys), "new_judgments": sum(m[1] for m in counts),
            "null_judgments": sum(1 for k in keys if k[2] is not None and k[3] is None),
            "failed": sum(1 for k in keys if k[3] is not None and REFUSED not in k[3]),
            "judgments_left_undone": sum(1 for k in keys if k[3] is not None and REFUSED in k[3]),
            "model_calls_made": sum(m[3] for m in counts), "cost_usd": float(sum(m[4] for m in counts))}
    return out


def _judge_asset(judge: str):
    module = MODULES[judge]
    name = f"judgments_{judge}"
    # The judges share the model (on the embedded one, the CPU): the multiprocess executor runs one judge
    # step at a time (tag limit in definitions); each unit batches its calls.
    tags = {"peerlake/judge": "serial"}

    @op(name=f"{name}_plan", ins={"after": In(Nothing)}, out={"units": DynamicOut(), "plan": Out()})
    def _plan(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource):
        log = lake.event_log()
        study = lake.study(log, study_of(context))
        if judge not in study.judges:
            context.log.info(f"study {study.name} does not name the {judge} judge (judges = {list(study.judges)})")
            yield from emit_units([], JudgePlan(0, skipped=True))
            return
        _, reviews = judged_reviews(log, study, lake.resolve(log, study))
        gateway = reviewer.gateway(log)
        record_estimate(context, log, study, lambda hist: judge_estimate(log, study, gateway, judge, reviews, hist))
        # a paper's reviews stay in one unit (the flaws judge pools them): by paper, in their order within it
        size = unit_size(context)
        units = chunks(sorted(reviews, key=lambda r: r.paper_id) if size else reviews, size, group=lambda r: r.paper_id)
        yield from emit_units(units, JudgePlan(len(reviews), skipped=False))

    @op(name=f"{name}_unit", retry_policy=UNIT_RETRY, tags=tags)
    def _unit(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
              reviews: list) -> JudgmentsDone:
        if not reviews:
            return JudgmentsDone((), 0, 0, 0, 0.0, 0)
        log = lake.event_log()
        study = lake.study(log, study_of(context))
        resources = resources_for(judge, log)  # opened once for every repeat (novelty: its retrieval client)
        gateway = reviewer.gateway(log)
        before = gateway.stats.snapshot()
        keys, labels, members = [], [], []
        with unit_calls(context, study, name):
            # the primary first: under a cost cap, the other members' judgments are the ones left undone
            for member, cfg in judge_panel(study.judging):
                config_id = cfg.identity(judge, module.TEMPLATES)
                recorder = Recorder(log, config_id, module.PARSER_VERSION, study=study.name)
                start = gateway.stats.snapshot()
                for repeat in range(cfg.repeats):
                    ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, judge_config=config_id, repeat=repeat,
                                       study=study.name, label=member.label, **resources)
                    for j in module.judge(ctx, reviews, **options_for(judge, study.judging)):
                        recorder.record(j)
                        keys.append((j.subject_key, j.repeat, j.null_reason, j.failed_call))
                        labels.append(member.label)
                members.append((member.label, recorder.written, recorder.skipped,
                                gateway.stats.made_in_run - start.made_in_run,
                                float(gateway.stats.made_in_run_cost_usd - start.made_in_run_cost_usd)))
        seal_unit(log)
        failed = [(k, label) for k, label in zip(keys, labels, strict=True) if k[3] is not None and REFUSED not in k[3]]
        for (subject, repeat, _, why), label in failed[:20]:
            who = judge if label is None else f"{judge} [{label}]"
            context.log.error(f"{who} judge on {subject} (repeat {repeat}) not made: {why}")
        panel = study.judging.panel != ()
        return JudgmentsDone(tuple(keys), sum(m[1] for m in members), sum(m[2] for m in members),
                             gateway.stats.made_in_run - before.made_in_run,
                             float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd),
                             gateway.stats.refused_calls - before.refused_calls,
                             labels=tuple(labels) if panel else (), members=tuple(members) if panel else ())

    @op(name=f"{name}_collect", out=Out(Nothing))
    def _collect(context: OpExecutionContext, lake: LakeResource, reviewer: ReviewerResource,
                 plan: JudgePlan, done: list):
        log = lake.event_log()
        study = lake.study(log, study_of(context))
        if plan.skipped:
            return materialization({"study": study.name, "skipped": "judge not in the study"}, None)
        cfg = judge_config(study.judging)  # the primary's: the top-level metadata, as before panels
        config_id = cfg.identity(judge, module.TEMPLATES)
        keys = [k for d in done for k in d.keys]
        written, skipped = sum(d.written for d in done), sum(d.skipped for d in done)
        # a judgment whose call the cost cap refused is left undone (the next run makes it), not failed
        undone = [k for k in keys if k[3] is not None and REFUSED in k[3]]
        failed = [k for k in keys if k[3] is not None and REFUSED not in k[3]]
        if keys and len(failed) == len(keys):
            raise RuntimeError(f"every {judge} judgment failed; first: {failed[0][3]}")
        made = sum(d.made for d in done)
        nulls = sum(1 for k in keys if k[2] is not None and k[3] is None)
        context.log.info(f"{judge}: {len(keys)} judgments ({written} new, {skipped} already "
                         f"recorded, {nulls} null with a reason, {len(failed)} failed, {len(undone)} left undone "
                         f"by the cost cap); {made} model calls made")
        gateway = reviewer.gateway(log)
        panel, model = {}, f"{cfg.provider}/{cfg.model}"
        if study.judging.panel:
            panel = {"panel": _panel_metadata(study, judge, done)}
            model = ", ".join(f"{m['model']} [{label}]" for label, m in panel["panel"].items())
            for label, m in panel["panel"].items():
                context.log.info(f"{judge} [{label}]: {m['judgments']} judgments ({m['new_judgments']} new); "
                                 f"{m['model_calls_made']} model calls made")
            # each member's judgments count apart: two members' judgments of one review are two
            keys = [(label, *k) for d in done for label, k in zip(d.labels, d.keys, strict=True)]
        return materialization(
            {"study": study.name, "judge_config": config_id, "model": model,
             "reviews": plan.n_reviews, "judgments": len(keys), "new_judgments": written,
             "null_judgments": nulls, "failed": len(failed), "model_calls_made": made,
             "cost_usd": float(sum(d.cost_usd for d in done)),
             "judgments_left_undone": len(undone), **panel,
             **budget_metadata(context, study, gateway, sum(d.refused for d in done))},
            DataVersion(hashlib.sha256(json.dumps(sorted(map(str, keys))).encode()).hexdigest()[:16]))

    @graph_asset(name=name, group_name="judgments",
                 ins={"ai_reviews": AssetIn(ai_reviews.key, dagster_type=Nothing),
                      "system_reviews": AssetIn(system_reviews_asset.key, dagster_type=Nothing),
                      "human_reviews": AssetIn(human_reviews_asset.key, dagster_type=Nothing)},
                 code_version=_code_version(judge), kinds={"llm"}, partitions_def=studies,
                 description=f"The {judge} judge (PRISM) on the study's reviews → llm_call and judgment_recorded "
                             "events (nothing when the study does not name it); one step per unit of papers' reviews "
                             "(PEERLAKE_UNIT_SIZE), so executors spread them.")
    def _judge(ai_reviews, system_reviews, human_reviews):
        units, plan = _plan(after=[ai_reviews, system_reviews, human_reviews])
        return _collect(plan, units.map(_unit).collect())

    return _judge


JUDGE_ASSETS = [_judge_asset(judge) for judge in JUDGES]


@asset(group_name="judgments", deps=[AssetKey(f"judgments_{j}") for j in JUDGES], partitions_def=studies,
       description="Which reviews (and flaw pools) each of the study's judges covered → a study_resolved "
                   "event the quality marts scope by (a listed review without a judgment shows as not_judged).")
def judgments(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    resolution = lake.resolve(log, study)
    paper_ids, reviews = judged_reviews(log, study, resolution) if study.judges else (resolution.paper_ids, [])
    panel = judge_panel(study.judging) if study.judges else []
    rows = []
    for judge in study.judges:
        module = MODULES[judge]
        coverage = coverage_for(judge, reviews)  # the pools a pooling judge forms, else every review
        for member, cfg in panel:  # one row per member, the primary first
            row = {"judge": judge, "judge_config": cfg.identity(judge, module.TEMPLATES), "provider": cfg.provider,
                   "model": cfg.model, "repeats": cfg.repeats,
                   # [judging.require]: the card the judge must show (judge_card_checks); only when declared, so
                   # a study without it resolves exactly as before
                   **({"require": dict(study.judging.require)} if study.judging.require else {}),
                   # a panel member's name and whether it is the headline judge; likewise only with a panel
                   **({"label": member.label, "primary": member.is_primary} if member.label is not None else {})}
            row.update(coverage)
            rows.append(row)
    record_resolution(log, study, paper_ids, [], asset="judgments", judges=rows)
    log.seal()
    return MaterializeResult(metadata={"study": study.name, "judges": ", ".join(study.judges) or "none",
                                       "reviews": len(reviews)})
