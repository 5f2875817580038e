"""The dbt project, and nothing else (dagster-dbt caches manifests by path per process)."""

from dagster_dbt import DbtProject

from peerlake.dbt_project import PROJECT_DIR as DBT_PROJECT_DIR
from peerlake.warehouse import settings

# The project is found wherever it is installed (it ships as package data); its target/ goes where
# settings says, because an installed project sits in site-packages, which may be read-only. Runs
# get the same folder through DBT_TARGET_PATH (settings.export_lake_env).
peerlake_dbt = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR,
                          target_path=settings.dbt_target_dir())
# Only acts under `dagster dev`; the CLI and tests call prepare_dbt_manifest() explicitly.
peerlake_dbt.prepare_if_dev()
