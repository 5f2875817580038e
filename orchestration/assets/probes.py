"""Forced-decimal reviews and logprob score probes, through the LLM gateway (reliability §5, §6)."""

from concurrent.futures import ThreadPoolExecutor

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, asset

from peerlake.costs.estimate import request_rows
from peerlake.orchestration.assets.attribution import calls_of
from peerlake.orchestration.assets.budget import budget_metadata, record_estimate
from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.assets.reviews import keep_results, left_undone, study_papers
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.reviewing.probes import decimal_config, probe_code_version, probe_continuation, probe_requests
from peerlake.reviewing.scoring import ReviewerConfig, review_requests
from peerlake.studies import record_resolution, with_study
from peerlake.warehouse.attribution import in_context

# Code versions are configuration hashes (template text + model + parameters + schema), as for ai_reviews.
DECIMAL_CODE_VERSION = decimal_config(ReviewerConfig.default()).code_version()
PROBE_CODE_VERSION = probe_code_version(ReviewerConfig.default())


@asset(group_name="reviews", deps=[manuscripts], code_version=DECIMAL_CODE_VERSION, kinds={"llm"},
       partitions_def=studies, tags={"peerlake/optional": "probes"},
       description="K forced-decimal AI reviews per manuscript (same model, decimal template) → llm_call events.")
def ai_reviews_decimal(context: AssetExecutionContext, lake: LakeResource,
                       reviewer: ReviewerResource) -> MaterializeResult:
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    paper_ids, papers = study_papers(context, study, lake.resolve(log, study))
    # the study's first reviewer under the decimal template: same model, same parameters
    cfg = decimal_config(study.first_template_reviewer("decimal reviews"))
    requests = with_study([req for paper in papers for req in review_requests(log, paper, cfg)], study)
    gateway = reviewer.gateway(log)
    record_estimate(context, log, study, lambda hist: request_rows("ai_reviews_decimal", requests, gateway, hist))
    with calls_of(context, study):
        outcomes = gateway.call_many(requests, description="decimal reviews", return_exceptions=True)
    record_resolution(log, study, paper_ids, [cfg], asset="ai_reviews_decimal")
    log.seal()
    results = keep_results(context, "decimal review", requests, outcomes)
    made = sum(r.made_in_run for r in results)
    undone = left_undone(outcomes)
    return MaterializeResult(
        metadata={"reviews": len(results), "model_calls_made": made,
                  "failed": len(requests) - len(results) - undone, "reviewer_config": cfg.code_version(),
                  **budget_metadata(context, study, gateway, undone)},
        data_version=DataVersion(content_version([(r.request_key, r.event_id) for r in results])),
    )


def _probe_paper(gateway, req):
    """The probe, then (only when its logprobs cannot split "1" from "10") the forced-10 continuation."""
    from peerlake.metrics.distribution.probe import ProbeParseError, probe_distribution

    first = gateway.call(req)
    try:
        needs = probe_distribution(first.logprobs or []).ten_method == "no_continuation"
    except ProbeParseError:
        return [first]  # kept as an event; the mart flags it
    return [first, gateway.call(probe_continuation(req))] if needs else [first]


@asset(group_name="reviews", deps=[manuscripts], code_version=PROBE_CODE_VERSION, kinds={"llm"},
       partitions_def=studies, tags={"peerlake/optional": "probes"},
       description="One score-only logprob probe per manuscript (+ a forced-10 continuation) → llm_call events.")
def score_probes(context: AssetExecutionContext, lake: LakeResource, reviewer: ReviewerResource) -> MaterializeResult:
    log = lake.event_log()
    study = lake.study(log, study_of(context))
    paper_ids, papers = study_papers(context, study, lake.resolve(log, study))
    cfg = study.first_template_reviewer("score probes")
    requests = with_study([req for paper in papers for req in probe_requests(log, paper, cfg)], study)
    gateway = reviewer.gateway(log)
    # the probes themselves; a forced-10 continuation depends on the probe's answer and is not estimated
    record_estimate(context, log, study, lambda hist: request_rows("score_probes", requests, gateway, hist))
    # A local model keeps the last prompt's KV cache: running each probe's continuation right after
    # it re-reads only a few tokens (~1 s) instead of the whole paper (~35 s), so one paper at a time.
    workers = 1 if cfg.provider == "local" else reviewer.max_concurrency

    def run(req):
        try:
            return _probe_paper(gateway, req)
        except Exception as exc:  # one failed paper must not sink the batch; its attempts are events
            return exc

    with calls_of(context, study), ThreadPoolExecutor(max_workers=workers, thread_name_prefix="probe") as pool:
        # each task under its own copy of this context, so its calls carry the asset's labels
        outcomes = [f.result() for f in [pool.submit(in_context(run), req) for req in requests]]
    record_resolution(log, study, paper_ids, [cfg], asset="score_probes",
                      code_versions=[probe_code_version(cfg)])
    log.seal()
    results = [r for group in keep_results(context, "score probe", requests, outcomes) for r in group]
    made = sum(r.made_in_run for r in results)
    return MaterializeResult(
        metadata={"probes": len(requests), "calls": len(results), "model_calls_made": made,
                  "continuations": sum(1 for g in outcomes if isinstance(g, list) and len(g) == 2),
                  **budget_metadata(context, study, gateway, left_undone(outcomes))},
        data_version=DataVersion(content_version([(r.request_key, r.event_id) for r in results])),
    )
