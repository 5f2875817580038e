"""AI reviews: every (paper, sample) under the configured reviewer, through the LLM gateway."""

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, asset

from orchestration.assets.hashing import content_version
from orchestration.assets.ingest import manuscripts
from orchestration.resources import LakeResource, ReviewerResource
from reviewing.scoring import ReviewerConfig, latest_manuscripts, review_requests

# The code version is the reviewer configuration's hash (template text + model + parameters +
# output schema): editing the prompt marks exactly this asset and what depends on it stale.
REVIEWER_CODE_VERSION = ReviewerConfig.default().code_version()


def keep_results(context, what: str, requests, outcomes) -> list:
    """A failed call is already an event (status=error): log it, keep the others, fail only if all did."""
    failed = [(req, exc) for req, exc in zip(requests, outcomes) if isinstance(exc, BaseException)]
    for req, exc in failed:
        context.log.error(f"{what} of {req.subject_id} sample {req.sample_index} failed: {exc}")
    results = [r for r in outcomes if not isinstance(r, BaseException)]
    if requests and not results:
        raise RuntimeError(f"all {len(requests)} {what}s failed; first error: {failed[0][1]}")
    return results


@asset(group_name="reviews", deps=[manuscripts], code_version=REVIEWER_CODE_VERSION, kinds={"llm"},
       description="K independent AI reviews per manuscript → llm_call events (replayed when already made).")
def ai_reviews(context: AssetExecutionContext, lake: LakeResource, reviewer: ReviewerResource) -> MaterializeResult:
    log = lake.event_log()
    cfg = ReviewerConfig.from_resource(reviewer)
    requests = [req for paper in latest_manuscripts(log) for req in review_requests(log, paper, cfg)]
    gateway = reviewer.gateway(log)
    outcomes = gateway.call_many(requests, description="AI reviews", return_exceptions=True)
    log.seal()
    results = keep_results(context, "review", requests, outcomes)
    failed = len(requests) - len(results)
    made = sum(not r.replayed for r in results)
    context.log.info(f"{len(results)} reviews: {made} model calls made, {len(results) - made} replayed, "
                     f"{failed} failed")
    return MaterializeResult(
        metadata={"reviews": len(results), "model_calls_made": made, "failed": failed,
                  "replayed": len(results) - made, "reviewer_config": cfg.code_version(),
                  "cost_usd": float(sum(r.cost_usd or 0.0 for r in results if not r.replayed))},
        data_version=DataVersion(content_version([(r.request_key, r.event_id) for r in results])),
    )
