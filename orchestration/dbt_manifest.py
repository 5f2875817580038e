"""Parse the dbt project when it changed, so the asset graph matches the models on disk. Its own module so
that orchestration.executors (imported by runner) can prepare a worker without importing runner."""

import json
import os
from pathlib import Path

from peerlake.warehouse import settings


def plugin_judges() -> str:
    """The plug-in judges' declaration as dbt reads it ($PEERLAKE_PLUGIN_JUDGES, macros/quality_judges.sql):
    what dbt_project.yml's quality_judges cannot list. `[]` without plug-in folders (no judge scan then)."""
    if not settings.plugin_dirs():
        return "[]"
    from peerlake.judging.registry import plugin_declaration

    return json.dumps(plugin_declaration(), sort_keys=True)


def export_dbt_env() -> dict[str, str]:
    """settings.export_lake_env, and the plug-in judges, for the dbt processes this one starts."""
    return settings.export_lake_env(PEERLAKE_PLUGIN_JUDGES=plugin_judges())


def prepare_dbt_manifest() -> None:
    """Parse the dbt project so the asset graph matches the models on disk (not only under dagster dev)."""
    from peerlake.orchestration.project import DBT_PROJECT_DIR, peerlake_dbt

    export_dbt_env()
    # Parsing costs ~7 s; skip it when no project file changed since the last parse.
    if not manifest_current(peerlake_dbt.manifest_path, DBT_PROJECT_DIR):
        peerlake_dbt.preparer.prepare(peerlake_dbt)


def manifest_current(manifest: Path, project_dir: Path | None = None) -> bool:
    """Whether the manifest is newer than every file of the dbt project (no parse needed)."""
    from peerlake.dbt_project import PROJECT_DIR

    if not manifest.exists():
        return False
    built = manifest.stat().st_mtime
    return all(p.stat().st_mtime <= built for p in _project_files(project_dir or PROJECT_DIR))


def _project_files(root):
    """The dbt project's own files. target/, logs/ and dbt_packages/ are pruned, not walked: target/ gains a
    folder of compiled SQL per dbt invocation (~1,800 files), so walking it cost seconds per call after a few
    test runs, and this runs two or three times per CLI command."""
    skip = {"target", "logs", "dbt_packages"}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        yield from (Path(folder, f) for f in files)
