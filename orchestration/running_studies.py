"""Which studies run now, as the lake's Dagster run storage tells it (for `peerlake study list`)."""

import os

from peerlake.warehouse import settings


def running_studies() -> dict[str, str]:
    """study -> Dagster run id of its runs Dagster marks started whose process is alive on this machine
    (a run killed with SIGKILL stays marked started forever; its dead pid tells it apart)."""
    if not (settings.dagster_home() / "history").is_dir():
        return {}  # no run ever: do not import Dagster for nothing
    from dagster import DagsterEventType, DagsterRunStatus, RunsFilter

    from peerlake.orchestration.runner import dagster_instance

    instance = dagster_instance()
    out = {}
    for run in instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.STARTING, DagsterRunStatus.STARTED])):
        study = run.tags.get("peerlake/study")  # orchestration.studies.run_study tags each study's run
        if not study:
            continue
        starts = instance.all_logs(run.run_id, of_type=DagsterEventType.RUN_START)
        pid = starts[-1].dagster_event.pid if starts and starts[-1].dagster_event else None
        if pid is not None:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            except PermissionError:
                pass  # alive, another user's
        out[study] = run.run_id
    return out
