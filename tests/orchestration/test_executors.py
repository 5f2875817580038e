"""`peerlake run STUDY --executor celery` on a real Redis broker and two real `dagster-celery` workers sharing
a lake on the local S3-API server: the study's review units spread over the workers, and a worker killed -9
mid-unit loses nothing — its unit goes back to the queue (late acknowledgement, Redis visibility timeout)
and the other worker finishes it, replaying every call the dead one had recorded. The model is the loopback
OpenAI-compatible server. The Dask executor runs a small dynamic job on a local cluster, a worker killed."""

import collections
import subprocess
import time

import pytest

from peerlake.warehouse import EventLog, Lake
from tests.orchestration.celery_cluster import PEERLAKE_BIN, Workers, cluster_env, redis_available, redis_server
from tests.orchestration.conftest import REPO, ReviewServer

pytestmark = pytest.mark.skipif(not redis_available(),
                                reason="redis-server is not installed (apt install redis-server)")

PAPERS = "demo-001,demo-002"
SAMPLES = 6  # 2 papers x 6 samples = 12 calls in units of 2: 6 unit steps
GATEWAY_CONCURRENCY = 2  # ReviewerResource.max_concurrency: calls a worker has in flight at once
WORKER_CONCURRENCY = 1


def _study(base_url: str) -> str:
    return f"""name = "spread"
[papers]
corpus = "demo"
[[reviewers]]
provider = "openai_compatible"
model = "fake-reviewer"
base_url = "{base_url}"
samples = {SAMPLES}
"""


def test_a_celery_run_says_what_to_start(tmp_path, monkeypatch):
    """No broker: how to start Redis. A broker but no worker: how to start one. Nothing runs before that."""
    from peerlake.orchestration.executors import ExecutorError, check_ready
    from tests.orchestration.celery_cluster import free_port

    monkeypatch.setenv("PEERLAKE_CELERY_BROKER", f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(ExecutorError, match=r"not reachable\. Start Redis on 127\.0\.0\.1 \(`redis-server --port"):
        check_ready("celery")
    with redis_server(tmp_path / "redis") as broker:
        monkeypatch.setenv("PEERLAKE_CELERY_BROKER", broker)
        with pytest.raises(ExecutorError, match=r"no Celery worker answers .* dagster-celery worker start"):
            check_ready("celery", wait_for_workers_s=0.5)


def test_a_study_spreads_over_celery_workers_and_survives_a_killed_one(tmp_path, s3_server, s3_lake_url,
                                                                       monkeypatch):
    from peerlake.studies import save_study

    lake_root = tmp_path / "lake"
    monkeypatch.setenv("PEERLAKE_HOME", str(lake_root))
    monkeypatch.setenv("PEERLAKE_LAKE_URL", s3_lake_url)
    with ReviewServer(delay_s=0.4) as server, redis_server(tmp_path / "redis") as broker:
        save_study(EventLog(Lake.default()), "spread", _study(server.openai_base_url))
        env = cluster_env(lake_root, broker, {**s3_server.env, "PEERLAKE_LAKE_URL": s3_lake_url,
                                              "PEERLAKE_DEMO_ONLY": PAPERS, "PEERLAKE_UNIT_SIZE": "2",
                                              # a dead worker's task is back in the queue after 6 s,
                                              "PEERLAKE_CELERY_VISIBILITY_TIMEOUT_S": "6",
                                              # and the claims of the calls it had in flight expire after 5 s
                                              "PEERLAKE_CLAIM_LEASE_S": "5"})
        workers = Workers(env, tmp_path / "workers", concurrency=WORKER_CONCURRENCY)
        try:
            workers.start("w1")
            workers.start("w2")
            workers.wait_ready()
            run = subprocess.Popen([PEERLAKE_BIN, "run", "spread", "--executor", "celery", "--no-build"], env=env,
                                   cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            # kill -9 a worker while it runs a review unit whose calls have started
            deadline = time.monotonic() + 90
            while (killed := _unit_running_on(lake_root, "w1")) is None or server.requests < 1:
                assert run.poll() is None, run.stdout.read()
                assert time.monotonic() < deadline, "no review unit started on w1"
                time.sleep(0.1)
            workers.kill("w1")
            out, _ = run.communicate(timeout=90)
        finally:
            workers.stop()
            if run.poll() is None:
                run.kill()
        assert run.returncode == 0, out
        assert "study spread: 2 papers, 12 reviews" in out, out
        paid = server.requests

    log = EventLog(Lake.default())  # the remote lake: what the workers' seals committed, and this machine's WALs
    log.seal()
    ok = collections.Counter(e.request_key for e in log.iter_events("llm_call") if e.status == "ok")
    assert len(ok) == 2 * SAMPLES and set(ok.values()) == {1}  # every call recorded, once
    in_flight = 1 * WORKER_CONCURRENCY * GATEWAY_CONCURRENCY  # one worker killed
    assert log.count("llm_call_duplicated") <= in_flight
    # paid twice: only a call the dead worker had in flight (its answer never reached the log)
    assert len(ok) <= paid <= len(ok) + in_flight
    # the dead worker's unit was delivered again, ran on w2 and succeeded (twice, if w1 had just finished it
    # but not acknowledged it when killed: the second attempt then replays every call)
    starts, ends = _step_events(lake_root, killed)
    assert starts == 2 and ends >= 1, (killed, starts, ends)
    # the steps handed each other their outputs through the lake's bucket, not a local folder
    bucket, _, prefix = s3_lake_url.removeprefix("s3://").partition("/")
    listed = s3_server.client().list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/dagster/io/")
    assert listed.get("KeyCount", 0) > 0


def _events(lake_root):
    from dagster import DagsterInstance

    with DagsterInstance.from_config(str(lake_root / "dagster")) as instance:
        runs = instance.get_runs(limit=1)
        return [] if not runs else [r.dagster_event for r in instance.all_logs(runs[0].run_id)
                                    if r.dagster_event is not None]


def _unit_running_on(lake_root, worker: str) -> str | None:
    """An ai_reviews unit step a worker has taken (the task's engine event names the worker), started and not
    finished."""
    events = _events(lake_root)
    started = {e.step_key for e in events if e.event_type_value == "STEP_START"}
    done = {e.step_key for e in events if e.event_type_value in ("STEP_SUCCESS", "STEP_FAILURE")}
    for e in events:
        meta = e.engine_event_data.metadata if e.event_type_value == "ENGINE_EVENT" else {}
        host = meta.get("Celery worker")
        if (host is not None and str(host.value).startswith(f"{worker}@") and "ai_reviews_unit[" in (e.step_key or "")
                and e.step_key in started and e.step_key not in done):
            return e.step_key
    return None


def _step_events(lake_root, step_key: str) -> tuple[int, int]:
    events = [e for e in _events(lake_root) if e.step_key == step_key]
    return (sum(e.event_type_value == "STEP_START" for e in events),
            sum(e.event_type_value == "STEP_SUCCESS" for e in events))


def test_dask_steps_run_dynamic_units_and_survive_a_killed_worker(tmp_path, monkeypatch):
    """orchestration.dask_steps on a local cluster of 2 worker processes: the units a dynamic output makes at
    run time are run (dagster_dask's executor skips them), and a unit whose worker is killed -9 runs again."""
    from dagster import DagsterInstance, execute_job, reconstructable

    from tests.orchestration.dask_job import KILL_MARKER_ENV, fan_out_job

    marker = tmp_path / "killed"
    monkeypatch.setenv(KILL_MARKER_ENV, str(marker))
    (tmp_path / "dagster").mkdir()
    with DagsterInstance.local_temp(str(tmp_path / "dagster")) as instance:
        config = {"execution": {"config": {"local": {"n_workers": 2, "threads_per_worker": 1}}}}
        with execute_job(reconstructable(fan_out_job), instance=instance, run_config=config) as result:
            assert result.success
            assert result.output_for_node("total") == 60
        started = [r.dagster_event.step_key for r in instance.all_logs(result.run_id)
                   if r.dagster_event is not None and r.dagster_event.event_type_value == "STEP_START"]
    assert marker.exists()  # a worker did die mid-unit …
    assert started.count("unit[u1]") == 2  # … and its unit ran again on a live worker
