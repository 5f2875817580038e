"""The bias probes' run (`peerlake probe-judges`): each judge of a study on controlled variants of what it
judged (judging/probes.py), recorded as the judgments asset records them, and the study's declarations
(probes, seed, tolerances) as a study_resolved event the judge_probes mart reads — dbt cannot read a
study file. Outside the Dagster graph: `peerlake run` never runs probes, so `make demo` pays nothing."""

ASSET = "judge_probes"  # the study_resolved asset that records which probes ran, and their tolerances


def run_probes(log, study, gateway, names: tuple[str, ...], progress: bool | None = False) -> list[dict]:
    """Every probe of `names` that applies, for each judge of the study and each of its repeats: the
    original judgments (replayed free when the study's run made them) and the variants, recorded as the
    judgments asset records; then a study_resolved (asset judge_probes) naming the judges, probes, seed
    and tolerances in force. One summary row per (judge, probe)."""
    from peerlake.judging import probes
    from peerlake.judging.base import JudgeContext, Recorder
    from peerlake.judging.registry import judges, options_for, resources_for
    from peerlake.orchestration.assets.judgments import judge_config, judged_reviews
    from peerlake.studies import record_resolution, resolve_papers

    spec = study.judging
    resolution = resolve_papers(log, study)
    _, reviews = judged_reviews(log, study, resolution)
    cfg = judge_config(spec)
    declared = dict(spec.probe_tolerances)
    rows, listed = [], []
    for judge in study.judges:
        module = judges()[judge]
        config_id = cfg.identity(judge, module.TEMPLATES)
        recorder = Recorder(log, config_id, module.PARSER_VERSION, study=study.name)
        resources = resources_for(judge, log)  # opened once for every repeat (novelty: its retrieval client)
        applied = [p for p in names if probes.applies(p, judge)]
        for repeat in range(cfg.repeats):
            ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, judge_config=config_id, repeat=repeat,
                               study=study.name, progress=progress, **resources)
            for j in module.judge(ctx, reviews, **options_for(judge, spec)):  # the originals
                recorder.record(j)
            for probe in applied:
                made = probes.run_probe(ctx, module, probe, reviews, seed=spec.probe_seed, **options_for(judge, spec))
                for j in made:
                    recorder.record(j)
                rows.append({"judge": judge, "probe": probe, "repeat": repeat, "variants": len(made),
                             "failed": sum(j.failed_call is not None for j in made),
                             "null": sum(j.null_reason is not None for j in made)})
        # the study's declarations as they stand; the mart fills the rest with the defaults (probes.tolerance)
        listed.append({"judge": judge, "judge_config": config_id, "provider": cfg.provider, "model": cfg.model,
                       "repeats": cfg.repeats, "probes": applied, "seed": spec.probe_seed, "tolerances": declared})
    record_resolution(log, study, resolution.paper_ids, [], asset=ASSET, judges=listed)
    log.seal()
    return rows
