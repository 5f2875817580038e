"""A Dagster executor that runs each step as a task on a Dask cluster, step by step as they become ready.

Why not dagster_dask's `dask_executor`: it submits the whole plan up front, level by level, so the steps
a dynamic output makes at run time (the review and judgment units) are never submitted. This executor
follows Dagster's own active execution (the loop dagster_celery uses), so it resolves dynamic outputs,
honours RetryPolicy, and runs each step on a worker with dagster_dask's `query_on_dask_worker`. A worker
that dies mid-step: the scheduler gives the task to another worker (Dask's `allowed_failures`), and the
unit replays what the dead one recorded."""

import itertools
import pickle
import sys
import time

from dagster import (
    Executor,
    Field,
    Noneable,
    Permissive,
    StringSource,
    executor,
    multiple_process_executor_requirements,
)
from dagster._core.errors import DagsterSubprocessError
from dagster._core.events import DagsterEvent, EngineEventData
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from dagster._core.execution.retries import RetryMode, get_retries_config
from dagster._utils.error import serializable_error_info_from_exc_info
from dagster_shared.serdes import deserialize_value

TICK_S = 0.2  # how often the driver looks for finished steps and steps that became ready


def run_step(args: bytes) -> list[str]:
    """On a Dask worker: one step of the run, in this worker's process (dagster_dask's step function). The
    events go back serialized, as dagster_celery's do (Dask cannot size Dagster's records)."""
    from dagster._serdes import serialize_value
    from dagster_dask.executor import query_on_dask_worker

    recon_job, run, run_config, step_keys, instance_ref, known_state = pickle.loads(args)
    events = query_on_dask_worker([], recon_job, run, run_config, step_keys, instance_ref, known_state)
    return [serialize_value(e) for e in events]


@executor(name="dask_steps",
          config_schema={"address": Field(Noneable(StringSource), is_required=False, default_value=None,
                                          description="tcp://host:8786 of a running scheduler; none: a local cluster"),
                         "local": Field(Permissive(), is_required=False, default_value={},
                                        description="LocalCluster keyword arguments (without an address)"),
                         "retries": get_retries_config()},
          requirements=multiple_process_executor_requirements())
def dask_steps_executor(init_context):
    cfg = init_context.executor_config
    return DaskStepsExecutor(cfg.get("address"), dict(cfg.get("local") or {}), RetryMode.from_config(cfg["retries"]))


class DaskStepsExecutor(Executor):
    def __init__(self, address: str | None, local: dict, retries: RetryMode):
        self.address, self.local, self._retries = address, local, retries

    @property
    def retries(self) -> RetryMode:
        return self._retries

    def execute(self, plan_context, execution_plan):
        from dask.distributed import Client, LocalCluster

        if execution_plan.step_keys_to_execute and not execution_plan.artifacts_persisted:
            raise DagsterSubprocessError("Dask steps need an IO manager on storage the workers share "
                                         "(the filesystem one on one machine), not in-memory storage")
        cluster = self.address or LocalCluster(**self.local)
        try:
            with Client(cluster) as client:
                yield from self._loop(client, plan_context, execution_plan)
        finally:
            if not isinstance(cluster, str):
                cluster.close()

    def _loop(self, client, plan_context, execution_plan):
        run, instance = plan_context.dagster_run, plan_context.instance
        running: dict = {}  # step key -> dask future
        errors: dict = {}
        submissions = itertools.count()  # a retried step is a new task (Dask caches a key's result)
        with InstanceConcurrencyContext(instance, run) as concurrency, execution_plan.start(
                retry_mode=self.retries, instance_concurrency_context=concurrency) as active:
            stopping = False
            while (not active.is_complete and not stopping) or running:
                if active.check_for_interrupts():
                    yield DagsterEvent.engine_event(plan_context, "Dask steps: interrupted, cancelling tasks",
                                                    EngineEventData.interrupted(list(running)))
                    stopping = True
                    active.mark_interrupted()
                    for future in running.values():
                        future.cancel()
                for key, future in list(running.items()):
                    if not future.done():
                        continue
                    del running[key]
                    try:
                        events = [deserialize_value(e, DagsterEvent) for e in future.result()]
                    except Exception:  # the task failed past Dask's own retries (e.g. KilledWorker)
                        events = []
                        errors[key] = serializable_error_info_from_exc_info(sys.exc_info())
                    for event in events:
                        yield event
                        active.handle_event(event)
                    active.verify_complete(plan_context, key)
                yield from active.plan_events_iterator(plan_context)
                if stopping or errors:
                    continue
                for step in active.get_steps_to_execute():
                    yield DagsterEvent.engine_event(plan_context.for_step(step),
                                                    f'Submitting step "{step.key}" to Dask.', EngineEventData())
                    # pickled whole: Dask walks tuple arguments, and Dagster's records refuse iteration
                    args = pickle.dumps((plan_context.reconstructable_job, run, plan_context.run_config, [step.key],
                                         instance.get_ref(), active.get_known_state()))
                    key = f"{run.run_id}.{step.key}.{next(submissions)}"
                    running[step.key] = client.submit(run_step, args, key=key, pure=False)
                time.sleep(TICK_S)
        if errors:
            raise DagsterSubprocessError(
                "Dask steps failed:\n" + "\n".join(f"[{k}]: {e.to_string()}" for k, e in errors.items()),
                subprocess_error_infos=list(errors.values()))
