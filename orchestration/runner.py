"""Run the pipeline in-process against the Dagster instance kept under the lake root, so the
runs, materializations and checks of `peerlake demo` show up in `make ui` afterwards."""

import os
from dataclasses import dataclass, field
from pathlib import Path

from warehouse import settings

DAGSTER_YAML = """\
# Written by peerlake: the instance for this lake. Telemetry off (no network here).
telemetry:
  enabled: false
"""


def dagster_instance():
    from dagster import DagsterInstance

    settings.export_lake_env()
    home = settings.dagster_home()
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "dagster.yaml"
    if not cfg.exists():
        cfg.write_text(DAGSTER_YAML)
    return DagsterInstance.from_config(str(home))


def prepare_dbt_manifest() -> None:
    """Parse the dbt project so the asset graph matches the models on disk (not only under dagster dev)."""
    from orchestration.project import DBT_PROJECT_DIR, peerlake_dbt

    settings.export_lake_env()
    manifest = peerlake_dbt.manifest_path
    # Parsing costs ~7 s; skip it when no project file changed since the last parse.
    if manifest.exists():
        built = manifest.stat().st_mtime
        if all(p.stat().st_mtime <= built for p in _project_files(DBT_PROJECT_DIR)):
            return
    peerlake_dbt.preparer.prepare(peerlake_dbt)


def _project_files(root):
    """The dbt project's own files. target/, logs/ and dbt_packages/ are pruned, not walked: target/ gains a
    folder of compiled SQL per dbt invocation (~1,800 files), so walking it cost seconds per call after a few
    test runs, and this runs two or three times per CLI command."""
    skip = {"target", "logs", "dbt_packages"}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        yield from (Path(folder, f) for f in files)


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


def run_pipeline(selection: list[str] | None = None, tags: dict | None = None,
                 log_level: str = "WARNING", resource_config: dict | None = None,
                 partition_key: str | None = None) -> PipelineRun:
    """Materialize the assets (all, or the selected keys and their checks) in this process."""
    from dagster import AssetKey, DagsterEventType

    prepare_dbt_manifest()
    instance = dagster_instance()
    from orchestration.definitions import defs

    job = defs.resolve_implicit_global_asset_job_def()
    keys = [AssetKey.from_user_string(s) for s in selection] if selection else None
    # The full event stream is kept in the instance (see `make ui`); the console gets warnings only.
    run_config: dict = {"loggers": {"console": {"config": {"log_level": log_level}}}}
    if resource_config:  # e.g. {"reviewer": {"samples": 5}}
        run_config["resources"] = {k: {"config": v} for k, v in resource_config.items()}
    result = job.execute_in_process(run_config=run_config, instance=instance, raise_on_error=False,
                                    asset_selection=keys, tags=tags or {},
                                    partition_key=partition_key)
    run = PipelineRun(success=result.success, run_id=result.run_id)
    for ev in result.all_events:
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
            run.failed_steps.append(f"{ev.step_key}: {err.message.strip() if err else ''}")
        elif ev.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            mat = ev.event_specific_data.materialization
            run.asset_metadata[mat.asset_key.to_user_string()] = {
                k: getattr(v, "value", v) for k, v in mat.metadata.items()}
    return run
