"""Parse the dbt project when it changed, so the asset graph matches the models on disk. Its own module so
that orchestration.executors (imported by runner) can prepare a worker without importing runner."""

import os
from pathlib import Path

from peerlake.warehouse import settings


def prepare_dbt_manifest() -> None:
    """Parse the dbt project so the asset graph matches the models on disk (not only under dagster dev)."""
    from peerlake.orchestration.project import DBT_PROJECT_DIR, peerlake_dbt

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
