"""The audited candidate becomes what users query: one atomic swap after every gate passed."""

from dagster import AssetExecutionContext, Failure, MaterializeResult, asset

from peerlake.orchestration.assets.dbt import DUCKDB_TAG, MART_KEYS
from peerlake.orchestration.resources import LakeResource


@asset(group_name="publish", op_tags=DUCKDB_TAG, deps=MART_KEYS,
       description="Publishes the candidate DuckDB file (every mart) over <lake>/peerlake.duckdb, "
                   "only after the gate of every mart this run rebuilt passed on it in this run, and keeps "
                   "its marts as a build snapshot for `peerlake diff --build`.")
def published_marts(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from dagster import DagsterEventType

    from peerlake.audit.builds_diff import key_columns
    from peerlake.llm_calls.stopping import stop_requested
    from peerlake.orchestration.assets.checks import gate_check_keys
    from peerlake.orchestration.build_plan import PLAN_TAG, take_plan
    from peerlake.warehouse.builds import keep_build
    from peerlake.warehouse.publish import candidate_status, publish

    if stop_requested():  # Ctrl-C or SIGTERM during the build: the published marts stay served
        raise Failure(description="not published: the build was asked to stop")
    root = lake.lake()
    # The candidate must be this run's: started from the published file by this run's first dbt step.
    status = candidate_status(root) or {}
    if status.get("run_id") != context.run.run_id:
        raise Failure(description="not published: no dbt step of this run built the candidate. Materialize "
                                  "the marts with their checks (`peerlake build`).")
    # Every mart this run rebuilt must have passed its gate in this run (a failed one already skips this
    # step: gates block). A mart the run did not rebuild is the published one, audited when it was
    # published (orchestration.build_plan); a UI selection of one mart without its check is refused.
    built = {rec.asset_key for rec in context.instance.get_records_for_run(
        run_id=context.run.run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION, limit=100_000).records
        if rec.asset_key is not None}
    rebuilt_gates = [key for key in gate_check_keys() if key.asset_key in built]
    unaudited = []
    for key in rebuilt_gates:
        record = context.instance.get_latest_asset_check_evaluation_record(key)
        evaluation = record.evaluation if record else None
        if record is None or record.run_id != context.run.run_id or evaluation is None or not evaluation.passed:
            unaudited.append(key.to_user_string())
    if unaudited:
        raise Failure(description="not published: these gates did not pass in this run: "
                                  + ", ".join(unaudited) + ". Materialize all marts with their checks.")
    fingerprint = take_plan(root, context.run.tags.get(PLAN_TAG))
    path = publish(root, fingerprint)
    head = lake.event_log().head()  # the event log's chain head, kept here as a witness outside the lake
    # Never raises: a snapshot that fails is logged as a warning and the publish stands (warehouse.builds).
    kept = keep_build(root, [k.path[-1] for k in MART_KEYS], key_columns, head.seq if head else 0, context.log)
    return MaterializeResult(metadata={"build_id": kept["build_id"] if kept else "",
                                       "build_snapshot_seconds": kept["seconds"] if kept else 0.0,
                                       "build_snapshot_new_chunks": kept["new_chunks"] if kept else 0,
                                       "path": str(path), "bytes": path.stat().st_size,
                                       "marts": len(MART_KEYS), "marts_rebuilt": sum(k in built for k in MART_KEYS),
                                       "gates_run": len(rebuilt_gates),
                                       "chain_head_seq": head.seq if head else 0,
                                       "chain_head_sha256": head.sha256 if head else ""})
