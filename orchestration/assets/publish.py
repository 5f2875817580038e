"""The audited candidate becomes what users query: one atomic swap after every gate passed."""

from dagster import AssetExecutionContext, Failure, MaterializeResult, asset

from orchestration.assets.dbt import DUCKDB_TAG, MART_KEYS
from orchestration.resources import LakeResource


@asset(group_name="publish", op_tags=DUCKDB_TAG, deps=MART_KEYS,
       description="Publishes the candidate DuckDB file (every mart) over <lake>/peerlake.duckdb, "
                   "only after every gate passed on it in this run.")
def published_marts(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from orchestration.assets.checks import gate_check_keys
    from warehouse.publish import publish

    # In a run with the gates, a failed one already skips this step (they block). A run without
    # some of them (e.g. a UI selection of one mart + this asset) would publish an unaudited
    # candidate: the candidate is published whole, so it must be audited whole, in this run.
    unaudited = []
    for key in gate_check_keys():
        record = context.instance.get_latest_asset_check_evaluation_record(key)
        evaluation = record.evaluation if record else None
        if record is None or record.run_id != context.run_id or evaluation is None or not evaluation.passed:
            unaudited.append(key.to_user_string())
    if unaudited:
        raise Failure(description="not published: these gates did not pass in this run: "
                                  + ", ".join(unaudited) + ". Materialize all marts with their checks.")
    path = publish(lake.lake())
    head = lake.event_log().head()  # the event log's chain head, kept here as a witness outside the lake
    return MaterializeResult(metadata={"path": str(path), "bytes": path.stat().st_size,
                                       "marts": len(MART_KEYS),
                                       "chain_head_seq": head.seq if head else 0,
                                       "chain_head_sha256": head.sha256 if head else ""})
