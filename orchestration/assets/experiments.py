"""The robustness experiments, one partition per study.

- `paper_variants` makes the experiments' manuscripts before anyone reviews: the contradiction
  benchmark (a knowledge graph per paper, one rewritten paragraph per distance), the hidden-text
  injection and the stress suite's edits (judging.stress). Each variant is a paper of its own, so the
  study's reviewers read it like any other.
- `experiment_<name>` runs that experiment's judge over every review of the study's papers:
  detection (contradictions), injection mention (hidden_text), withdrawal match, score prediction,
  focus, stress mention (stress). Every judgment is a `judgment_recorded` event; the marts compute
  every number from them.

A study without the experiment skips the asset; a second run replays every call and writes nothing."""

import hashlib
import json

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, asset

from peerlake.ingest.variants import recorded_variants
from peerlake.judging.base import JudgeConfig, JudgeContext, Recorder
from peerlake.orchestration.assets.attribution import calls_of
from peerlake.orchestration.assets.budget import REFUSED, budget_metadata
from peerlake.orchestration.assets.ingest import human_reviews as human_reviews_asset
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.reviews import ai_reviews
from peerlake.orchestration.assets.systems import system_reviews as system_reviews_asset
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.studies import VARIANTS_ASSET, record_resolution
from peerlake.studies.experiments import BUILDERS, JUDGES, builder, experiments, judge_module, study_reviews


def _code_version(modules) -> str:
    from peerlake.prompts import load_template

    parts = [[m.__name__, [load_template(t).hash for t in getattr(m, "TEMPLATES", ())]] for m in modules]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


@asset(group_name="experiments", deps=[manuscripts], kinds={"llm"}, partitions_def=studies,
       code_version=_code_version([builder(e) for e in BUILDERS]),
       description="The study's experiment manuscripts: a contradiction inserted per graph distance "
                   "([contradictions]), hidden text injected ([hidden_text]) and the stress suite's edits "
                   "([stress]) → paper_variant events, each built variant ingested as a paper the study's "
                   "reviewers then read.")
def paper_variants(context: AssetExecutionContext, lake: LakeResource, reviewer: ReviewerResource) -> MaterializeResult:
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    todo = [e for e in experiments(study) if e.builder_spec is not None]
    if not todo:
        return MaterializeResult(metadata={"study": study.name, "skipped": "no experiment that makes manuscripts"})
    variant_ids = {v.variant_id for v in recorded_variants(log).values()}
    # the base papers: the study's manuscripts that are not themselves variants
    papers = [m for m in lake.resolve(log, study).manuscripts if m.paper_id not in variant_ids]
    gateway = reviewer.gateway(log)
    before = gateway.stats.snapshot()
    built: list[str] = []
    meta: dict = {"study": study.name, "base_papers": len(papers)}
    for exp in todo:
        mod = builder(exp.name)
        if getattr(mod, "TEMPLATES", ()):  # a builder with prompts calls a model: it gets a judge's context
            cfg = exp.builder_config(study)
            ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, study=study.name,
                               judge_config=cfg.identity(mod.JUDGE, mod.TEMPLATES))
            with calls_of(context, study):
                report = mod.build(ctx, papers, exp.builder_spec)
            events = list(report.variants)
            meta.update({f"{exp.name}_{k}": v for k, v in _counts(report).items()})
        else:
            events = mod.build(log, papers, exp.builder_spec, study=study.name)
        ok = [e.variant_id for e in events if e.built]
        built += ok
        meta[f"{exp.name}_variants"] = len(events)
        meta[f"{exp.name}_built"] = len(ok)
        reasons: dict[str, int] = {}
        for e in events:
            if not e.built:
                reasons[e.reason or "?"] = reasons.get(e.reason or "?", 0) + 1
        if reasons:
            meta[f"{exp.name}_not_built_reasons"] = json.dumps(reasons, sort_keys=True)
            context.log.warning(f"{exp.name}: {sum(reasons.values())} variants not built: {reasons}")
        context.log.info(f"{exp.name}: {len(events)} variants, {len(ok)} built")
    record_resolution(log, study, sorted(set(built)), [], asset=VARIANTS_ASSET)
    log.seal()
    meta["model_calls_made"] = gateway.stats.made_in_run - before.made_in_run
    meta["cost_usd"] = float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd)
    return MaterializeResult(metadata=meta,
                             data_version=DataVersion(hashlib.sha256(json.dumps(sorted(built)).encode()).hexdigest()[:16]))


def _counts(report) -> dict:
    """The builder's counts (graphs, quotes dropped, edges rejected, unreachable nodes …) as metadata."""
    out = {}
    for k, v in vars(report).items():
        if k != "variants" and isinstance(v, int | float | str):
            out[k] = v
    return out


def _declared_tolerances(exp) -> dict:
    """{"tolerances": {...}} when the experiment's spec declares what its marts' verdicts tolerate (the stress
    suite's: int_stress_tolerances reads them from this resolution), else nothing."""
    tolerances = getattr(exp.builder_spec, "tolerances", None)
    return {"tolerances": tolerances()} if callable(tolerances) else {}


def _experiment_asset(experiment: str):
    module = judge_module(experiment)

    @asset(name=f"experiment_{experiment}", group_name="experiments",
           deps=[ai_reviews, system_reviews_asset, human_reviews_asset], code_version=_code_version([module]),
           kinds={"llm"}, partitions_def=studies, op_tags={"peerlake/judge": "serial"},
           description=f"The {module.JUDGE} judge of the [{experiment}] experiment on the study's reviews → "
                       "llm_call and judgment_recorded events (nothing when the study does not run it).")
    def _run(context: AssetExecutionContext, lake: LakeResource, reviewer: ReviewerResource) -> MaterializeResult:
        log = lake.event_log()
        study = lake.study(log, study_of(context))
        exp = next((e for e in experiments(study) if e.name == experiment), None)
        if exp is None:
            return MaterializeResult(metadata={"study": study.name, "skipped": f"the study has no [{experiment}]"})
        paper_ids, reviews = study_reviews(log, study, lake.resolve(log, study))
        reviews = [r for r in reviews if exp.covers(r.paper_id)]
        cfg: JudgeConfig = exp.judge_config(study)
        config_id = exp.judge_config_id(cfg)
        recorder = Recorder(log, config_id, module.PARSER_VERSION, study=study.name)
        gateway = reviewer.gateway(log)
        before = gateway.stats.snapshot()
        ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, judge_config=config_id, study=study.name)
        with calls_of(context, study):
            judgments = module.judge(ctx, reviews, exp.judge_spec)
        keys = []
        for j in judgments:
            recorder.record(j)
            keys.append((j.subject_key, j.repeat, j.null_reason, j.failed_call))
        record_resolution(log, study, paper_ids, [], asset=f"experiment_{experiment}",
                          judges=[{"judge": module.JUDGE, "judge_config": config_id, "provider": cfg.provider,
                                   "model": cfg.model, "repeats": cfg.repeats,
                                   "review_keys": sorted({r.review_key for r in reviews}),
                                   **_declared_tolerances(exp)}])
        log.seal()
        undone = [k for k in keys if k[3] is not None and REFUSED in k[3]]
        failed = [k for k in keys if k[3] is not None and REFUSED not in k[3]]
        for subject, repeat, _, why in failed[:20]:
            context.log.error(f"{module.JUDGE} on {subject} (repeat {repeat}) not made: {why}")
        if keys and len(failed) == len(keys):
            raise RuntimeError(f"every {module.JUDGE} judgment failed; first: {failed[0][3]}")
        made = gateway.stats.made_in_run - before.made_in_run
        nulls = sum(1 for k in keys if k[2] is not None and k[3] is None)
        context.log.info(f"{module.JUDGE}: {len(keys)} judgments ({recorder.written} new, {recorder.skipped} already "
                         f"recorded, {nulls} null with a reason, {len(failed)} failed, {len(undone)} left undone "
                         f"by the cost cap); {made} model calls made")
        return MaterializeResult(
            metadata={"study": study.name, "judge": module.JUDGE, "judge_config": config_id,
                      "model": f"{cfg.provider}/{cfg.model}", "repeats": cfg.repeats, "reviews": len(reviews),
                      "judgments": len(keys), "new_judgments": recorder.written, "null_judgments": nulls,
                      "failed": len(failed), "model_calls_made": made,
                      "cost_usd": float(gateway.stats.made_in_run_cost_usd - before.made_in_run_cost_usd),
                      "judgments_left_undone": len(undone),
                      **budget_metadata(context, study, gateway, gateway.stats.refused_calls - before.refused_calls)},
            data_version=DataVersion(hashlib.sha256(json.dumps(sorted(map(str, keys))).encode()).hexdigest()[:16]))

    return _run


EXPERIMENT_ASSETS = [_experiment_asset(e) for e in JUDGES]
