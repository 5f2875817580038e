"""Where a run's steps execute: in this process (the default), in child processes, or on workers of an
existing executor — Dagster's Celery executor (a Redis broker) or a Dask cluster (orchestration.dask_steps)
— on any number of machines that share the lake (PEERLAKE_HOME, or PEERLAKE_LAKE_URL) and the Dagster
instance. The run's steps are the study's assets; its model work is in small units (assets.units).

Every executor but in_process needs a run Dagster can rebuild in another process: the job is named by
`study_job(executor)` in this module (a reconstructable pointer), and each step runs in a worker through
`dagster api`'s step execution (Celery: the `execute_plan` task of dagster_celery.app)."""

import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

EXECUTORS = ("in_process", "multiprocess", "celery", "dask")

CELERY_BROKER_ENV = "PEERLAKE_CELERY_BROKER"
CELERY_BACKEND_ENV = "PEERLAKE_CELERY_BACKEND"
CELERY_VISIBILITY_ENV = "PEERLAKE_CELERY_VISIBILITY_TIMEOUT_S"
DASK_SCHEDULER_ENV = "PEERLAKE_DASK_SCHEDULER"
DEFAULT_CELERY_BROKER = "redis://127.0.0.1:6379/0"
# A task taken by a worker that then vanished (kill -9, a lost machine) goes back to the queue after this
# long (the Redis transport's visibility timeout, with late acknowledgement). It must exceed the longest
# unit, or a slow unit is handed to a second worker while it runs (harmless: the gateway's request lock
# and replay make the second attempt free, but it is work done twice).
DEFAULT_CELERY_VISIBILITY_S = 600.0


class ExecutorError(RuntimeError):
    """A run that cannot start on the chosen executor; the message says what to start."""


def celery_broker() -> str:
    return os.environ.get(CELERY_BROKER_ENV) or DEFAULT_CELERY_BROKER


def celery_backend() -> str:
    """Where workers put step results; by default the broker's Redis (results survive a driver restart)."""
    return os.environ.get(CELERY_BACKEND_ENV) or celery_broker()


def celery_visibility_timeout_s() -> float:
    return float(os.environ.get(CELERY_VISIBILITY_ENV) or DEFAULT_CELERY_VISIBILITY_S)


def dask_scheduler() -> str | None:
    """`tcp://host:8786` of a running `dask scheduler`; unset: a LocalCluster in the driver process."""
    return os.environ.get(DASK_SCHEDULER_ENV) or None


def celery_config() -> dict:
    """The Celery executor's config: the same block the workers get (`celery_worker_yaml`)."""
    from dagster_celery.defaults import broker_transport_options

    return {
        "broker": celery_broker(),
        "backend": celery_backend(),
        "config_source": {
            # a task is acknowledged when it ends, not when a worker takes it, so a worker's death returns
            # its unit to the queue for another worker (with the visibility timeout on Redis)
            "task_acks_late": True,
            "task_reject_on_worker_lost": True,
            "worker_prefetch_multiplier": 1,
            "broker_transport_options": {**broker_transport_options, **_redelivery()},
            "result_backend_transport_options": {"visibility_timeout": celery_visibility_timeout_s()},
        },
    }


def _redelivery() -> dict:
    """Redis transport options: a task unacknowledged for the visibility timeout goes back to the queue; every
    worker sweeps for such tasks every `unacked_restore_interval` s (kombu's default sweep is 100 s)."""
    timeout = celery_visibility_timeout_s()
    return {"visibility_timeout": timeout, "unacked_restore_interval": max(1, min(10, int(timeout / 4))),
            "unacked_restore_throttle": 1}


def celery_worker_yaml() -> str:
    """The `-y` file of `dagster-celery worker start`: what the run's executor is configured with."""
    import yaml

    return yaml.safe_dump({"execution": {"config": celery_config()}}, sort_keys=True)


def run_config_for(executor: str) -> dict:
    """The run config's `execution` block for the executor (empty for in-process and multiprocess)."""
    if executor == "celery":
        return {"execution": {"config": celery_config()}}
    if executor == "dask":
        address = dask_scheduler()
        config = {"address": address} if address else {"local": {"n_workers": 2, "threads_per_worker": 1}}
        return {"execution": {"config": config}}
    return {}


def executor_def(executor: str):
    """The Dagster executor definition (None: the Definitions' own, i.e. multiprocess with its tag limits)."""
    if executor == "celery":
        from dagster_celery import celery_executor

        return celery_executor
    if executor == "dask":  # step by step on the Dask cluster (dagster_dask's executor skips dynamic steps)
        from peerlake.orchestration.dask_steps import dask_steps_executor

        return dask_steps_executor
    return None


def study_job(executor: str):
    """The asset job on `executor`. Module-level and called by name, so workers rebuild the same job."""
    from peerlake.orchestration.dbt_manifest import prepare_dbt_manifest

    prepare_dbt_manifest()
    from dagster import AssetSelection, Definitions, define_asset_job

    from peerlake.orchestration.assets.partitions import studies
    from peerlake.orchestration.definitions import defs

    # A job of its own (the implicit asset job's name is reserved) over the assets partitioned by study: a
    # job's assets share one partitioning, and the study's run is what spreads (the build stays in-process).
    graph = defs.resolve_asset_graph()
    keys = [k for k in graph.materializable_asset_keys if graph.get(k).partitions_def == studies]
    job = define_asset_job(f"peerlake_study_{executor}", selection=AssetSelection.assets(*keys),
                           executor_def=executor_def(executor))
    return Definitions.merge(defs, Definitions(jobs=[job])).resolve_job_def(job.name)


def reconstructable_job(executor: str):
    from dagster._core.definitions.reconstruct import build_reconstructable_job

    return build_reconstructable_job("peerlake.orchestration.executors", "study_job", reconstructable_args=(executor,))


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int


def _endpoint(url: str, default_port: int) -> Endpoint:
    parts = urlsplit(url)
    return Endpoint(parts.hostname or "127.0.0.1", parts.port or default_port)


def _reachable(end: Endpoint, timeout_s: float = 2.0) -> bool:
    try:
        with socket.create_connection((end.host, end.port), timeout=timeout_s):
            return True
    except OSError:
        return False


def check_ready(executor: str, wait_for_workers_s: float = 5.0) -> None:
    """Refuse to start a run nothing would execute: an unreachable broker or scheduler, or no worker."""
    if executor not in EXECUTORS:
        raise ExecutorError(f"unknown executor {executor!r}; one of {', '.join(EXECUTORS)}")
    if executor == "celery":
        _check_celery(wait_for_workers_s)
    elif executor == "dask" and dask_scheduler():
        _check_dask(dask_scheduler(), wait_for_workers_s)


def _check_celery(wait_for_workers_s: float) -> None:
    broker = celery_broker()
    if urlsplit(broker).scheme.startswith("redis") and not _reachable(_endpoint(broker, 6379)):
        end = _endpoint(broker, 6379)
        bind = "127.0.0.1" if end.host in ("127.0.0.1", "localhost") else "0.0.0.0 --protected-mode no"
        raise ExecutorError(
            f"the Celery broker {broker} is not reachable. Start Redis on {end.host} (`redis-server --port "
            f"{end.port} --bind {bind}`, or your distribution's redis-server service) or point "
            f"{CELERY_BROKER_ENV} at a running one.")
    from dagster_celery.executor import CeleryExecutor
    from dagster_celery.make_app import make_app

    cfg = celery_config()
    app = make_app(CeleryExecutor.for_cli(broker=cfg["broker"], backend=cfg["backend"],
                                          config_source=cfg["config_source"]).app_args())
    try:
        replies = app.control.ping(timeout=wait_for_workers_s, limit=1) or []
    finally:
        app.close()
    if not replies:
        raise ExecutorError(
            f"no Celery worker answers on {broker}. Start one on each machine, in the run's environment "
            f"(PEERLAKE_HOME or PEERLAKE_LAKE_URL, {CELERY_BROKER_ENV}, DAGSTER_HOME): "
            "`python -m peerlake.orchestration.executors celery-yaml > celery.yaml && "
            "dagster-celery worker start -A dagster_celery.app -y celery.yaml`")


def _check_dask(address: str, wait_for_workers_s: float) -> None:
    if not _reachable(_endpoint(address, 8786)):
        raise ExecutorError(f"the Dask scheduler {address} is not reachable. Start it with `dask scheduler` and "
                            f"workers with `dask worker {address}`, or unset {DASK_SCHEDULER_ENV} for a local cluster.")
    from dask.distributed import Client

    with Client(address, timeout=wait_for_workers_s) as client:
        if not client.scheduler_info().get("workers"):
            raise ExecutorError(f"the Dask scheduler {address} has no worker. Start one on each machine, with the "
                                f"same environment as the run: `dask worker {address}`.")


# `python -m peerlake.orchestration.executors celery-yaml > celery.yaml`: the workers' config
if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["celery-yaml"]:
        sys.exit("usage: python -m peerlake.orchestration.executors celery-yaml")
    sys.stdout.write(celery_worker_yaml())
