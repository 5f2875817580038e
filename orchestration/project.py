"""The dbt project, and nothing else (dagster-dbt caches manifests by path per process)."""

from pathlib import Path

from dagster_dbt import DbtProject

DBT_PROJECT_DIR = Path(__file__).resolve().parents[1] / "dbt_project"

peerlake_dbt = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)
# Only acts under `dagster dev`; the CLI and tests call prepare_dbt_manifest() explicitly.
peerlake_dbt.prepare_if_dev()
