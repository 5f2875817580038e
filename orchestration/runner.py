"""Run the pipeline in-process against the Dagster instance kept under the lake root, so the
runs, materializations and checks of `peerlake demo` show up in `make ui` afterwards."""

import contextlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.orchestration.dbt_manifest import prepare_dbt_manifest
from peerlake.warehouse import settings

DAGSTER_YAML_HEADER = "# Written by peerlake: the instance for this lake."
STEP_LINE = 300  # characters of a failed step's first line the terminal shows (console.report_run)
# Dagster's console logger writes to sys.stderr: warnings only, unless a command sends stderr to its
# run's log file (peerlake.run_log), which then gets every step's messages.
_console_level = ["WARNING"]


@contextlib.contextmanager
def console_log_level(level: str):
    _console_level.append(level)
    try:
        yield
    finally:
        _console_level.pop()


def dagster_yaml(home) -> str:
    """The instance configuration peerlake writes under a lake: telemetry off (no network here), the
    UI's "Join the Dagster community" modal off (`nux`: it opened over the UI on every first visit),
    and the event storage that keeps its SQLite connections open (orchestration/dagster_storage.py)."""
    return f"""\
{DAGSTER_YAML_HEADER} Rewritten when the lake moves or peerlake changes it (delete this line to keep your own edits).
telemetry:
  enabled: false
nux:
  enabled: false
event_log_storage:
  module: peerlake.orchestration.dagster_storage
  class: LakeEventLogStorage
  config:
    base_dir: {json.dumps(str(Path(home) / "history" / "runs"))}
"""


def write_dagster_yaml(home) -> None:
    """The lake's dagster.yaml, unless the user wrote their own (no peerlake header)."""
    cfg = Path(home) / "dagster.yaml"
    want = dagster_yaml(home)
    have = cfg.read_text() if cfg.exists() else None
    if have is not None and (not have.startswith(DAGSTER_YAML_HEADER) or have == want):
        return
    cfg.parent.mkdir(parents=True, exist_ok=True)
    tmp = cfg.with_name(f".dagster.yaml.{os.getpid()}.tmp")
    tmp.write_text(want)
    os.replace(tmp, cfg)  # a worker reading it at the same moment sees the old file or the new one


def dagster_instance():
    from dagster import DagsterInstance

    settings.export_lake_env()
    home = settings.dagster_home()
    write_dagster_yaml(home)
    return DagsterInstance.from_config(str(home))


@dataclass(frozen=True)
class FailedCheck:
    asset: str
    check: str
    description: str  # a gate's: status line, then each failed expectation with up to 5 keys
    suite: str | None = None  # the Great Expectations suite; None for a dbt test


@dataclass
class PipelineRun:
    success: bool
    run_id: str
    failed_checks: list[FailedCheck] = field(default_factory=list)
    failed_steps: list[str] = field(default_factory=list)
    asset_metadata: dict[str, dict] = field(default_factory=dict)
    plan_summary: str = ""  # what the build rebuilt and why (orchestration.build_plan)
    skipped: bool = False  # nothing changed since the published build: no run was made


def run_pipeline(selection: list[str] | None = None, tags: dict | None = None,
                 log_level: str | None = None, resource_config: dict | None = None,
                 partition_key: str | None = None, executor: str = "in_process") -> PipelineRun:
    """Materialize the assets (all, or the selected keys and their checks): in this process, or with the
    steps on another executor (orchestration.executors: multiprocess, celery, dask)."""
    from dagster import AssetKey

    from peerlake.llm_calls.progress import notice
    from peerlake.orchestration.assets.units import UNIT_SIZE_ENV, UNIT_SIZE_TAG
    from peerlake.orchestration.executors import check_ready

    check_ready(executor)  # a clear error (start Redis, start a worker) before any run is created
    # These take seconds (minutes on a busy machine) before the first step: say what is happening.
    notice("loading the pipeline (dbt project, Dagster definitions)…")
    prepare_dbt_manifest()
    instance = dagster_instance()
    from peerlake.orchestration.definitions import defs

    notice(f"starting a Dagster run of {len(selection) if selection else 'all'} assets"
           + (f" for study {partition_key}" if partition_key else "") + f" ({executor.replace('_', '-')})")

    keys = [AssetKey.from_user_string(s) for s in selection] if selection else None
    # The full event stream is kept in the instance (see `make ui`); the console gets warnings only, or
    # every message when a command sends it to its run's log file.
    # Steps in other processes log to their own stderr, the terminal: warnings only there, whatever ours is.
    level = log_level or (_console_level[-1] if executor == "in_process" else "WARNING")
    run_config: dict = {"loggers": {"console": {"config": {"log_level": level}}}}
    if resource_config:  # e.g. {"reviewer": {"samples": 5}}
        run_config["resources"] = {k: {"config": v} for k, v in resource_config.items()}
    tags = dict(tags or {})
    # The unit size is the run's (a tag), not each worker's environment. In this process the steps run one
    # after another: a study's model work stays one unit per asset (one gateway batch, as before units
    # existed) unless PEERLAKE_UNIT_SIZE asks for smaller ones.
    if os.environ.get(UNIT_SIZE_ENV):
        tags.setdefault(UNIT_SIZE_TAG, os.environ[UNIT_SIZE_ENV])
    elif executor == "in_process":
        tags.setdefault(UNIT_SIZE_TAG, "0")
    if executor == "in_process":
        job = defs.resolve_implicit_global_asset_job_def()
        result = job.execute_in_process(run_config=run_config, instance=instance, raise_on_error=False,
                                        asset_selection=keys, tags=tags, partition_key=partition_key)
        return _pipeline_run(result.success, result.run_id, result.all_events, instance)
    from dagster import execute_job

    from peerlake.orchestration.executors import reconstructable_job, run_config_for

    run_config.update(run_config_for(executor))
    if partition_key is not None:
        tags["dagster/partition"] = partition_key
    with warnings.catch_warnings():  # dagster_celery registers its task once per step submission
        warnings.filterwarnings("ignore", message="Task name 'execute_plan' is already registered")
        result = execute_job(reconstructable_job(executor), instance=instance, run_config=run_config, tags=tags,
                             asset_selection=keys, raise_on_error=False)
    # the steps ran elsewhere: their events are in the instance (shared with the workers)
    events = [rec.dagster_event for rec in instance.all_logs(result.run_id) if rec.dagster_event is not None]
    return _pipeline_run(result.success, result.run_id, events, instance)


def root_cause(err):
    """The innermost error of a step failure's `cause` chain (Dagster wraps the asset's exception in its
    DagsterExecutionStepExecutionError): what went wrong, not the executor's class."""
    while err.cause is not None:
        err = err.cause
    return err


def cause_line(err) -> str:
    """A step failure's cause as a terminal says it, in one line: the root cause's message without its
    module-qualified class (added after it: "… (KeyError)")."""
    cause = root_cause(err)
    message = " ".join(cause.message.split())  # one line: the terminal shows one per step
    head, _, rest = message.partition(": ")
    text = rest if rest and head.split(".")[-1] == cause.cls_name else message
    return f"{text} ({cause.cls_name})" if cause.cls_name else text


def first_logged_error(instance, run_id: str, asset: str) -> str | None:
    """The first ERROR message the asset's own steps logged in the run (a failed call's error: "review of
    demo-001 sample 0 failed: … set OPENAI_API_KEY"), often the cause a step's "all calls failed" names."""
    import logging

    for rec in instance.all_logs(run_id):
        if (rec.dagster_event is None and rec.level >= logging.ERROR and rec.user_message
                and (rec.step_key or "").split(".")[0] == asset):
            return " ".join(rec.user_message.split())
    return None


def step_failure_line(step_key: str, err, logged: str | None) -> str:
    """One line for a failed step: its root cause, then the first error its asset logged, middle elided so
    the line fits STEP_LINE (an error message ends with its most specific part: "…: HTTP400: no such model")."""
    line = f"{step_key}: {cause_line(err)}"
    if logged and logged not in line:
        room = STEP_LINE - len(line) - len("; first error logged: ")
        if len(logged) > room:
            logged = logged[:40] + " … " + logged[-max(room - 43, 20):]
        line += f"; first error logged: {logged}"
    return line


def _pipeline_run(success: bool, run_id: str, events, instance=None) -> PipelineRun:
    from dagster import DagsterEventType

    run = PipelineRun(success=success, run_id=run_id)
    logged: dict[str, str | None] = {}  # asset -> its first logged error, read from the run's log on a failure
    for ev in events:
        if ev.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            data = ev.event_specific_data
            if not data.passed:
                suite = data.metadata.get("suite")
                run.failed_checks.append(FailedCheck(
                    asset=data.asset_key.to_user_string(), check=data.check_name,
                    description=(data.description or "").strip(),
                    suite=suite.value if suite is not None else None))
        elif ev.event_type == DagsterEventType.STEP_FAILURE:
            err = ev.event_specific_data.error
            if err and err.cls_name == "DagsterAssetCheckFailedError":
                continue  # a blocking gate's own failure: already in failed_checks, with its rows
            # the cause in the first line (console.report_run prints each entry's first line, and the log's
            # path); the step's own error after it, whole, for a caller that reads more
            if err is None:
                run.failed_steps.append(f"{ev.step_key}: ")
                continue
            asset = ev.step_key.split(".")[0]
            if instance is not None and asset not in logged:
                logged[asset] = first_logged_error(instance, run_id, asset)
            run.failed_steps.append(step_failure_line(ev.step_key, err, logged.get(asset))
                                    + f"\n{err.message.strip()}")
        elif ev.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            mat = ev.event_specific_data.materialization
            run.asset_metadata[mat.asset_key.to_user_string()] = {
                k: getattr(v, "value", v) for k, v in mat.metadata.items()}
    return run
