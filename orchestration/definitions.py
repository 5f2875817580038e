"""The one Dagster entry point: `dagster dev -m peerlake.orchestration.definitions` (or `make ui`)."""

from dagster import (
    Definitions,
    load_asset_checks_from_package_module,
    load_assets_from_package_module,
    multiprocess_executor,
)

from peerlake.orchestration import assets
from peerlake.orchestration.assets import inbox
from peerlake.orchestration.project import peerlake_dbt
from peerlake.orchestration.resources import DbtCli, LakeResource, ReviewerResource, step_io_manager

# Every asset and asset check defined at module level anywhere under orchestration/assets/ (a lone
# definition or a list of them): a new asset module is picked up without being named here.
ASSETS = load_assets_from_package_module(assets)
CHECKS = load_asset_checks_from_package_module(assets)
RESOURCES = {
    "lake": LakeResource(),
    "reviewer": ReviewerResource(),
    "dbt": DbtCli(project_dir=peerlake_dbt),
    **step_io_manager(),
}

defs = Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    resources=RESOURCES,
    sensors=inbox.SENSORS,  # off by default: start it in the UI to ingest PDFs dropped into $PEERLAKE_INBOX
    # DuckDB takes one process per file: steps tagged peerlake/duckdb run one at a time. The judges
    # share the model (on the embedded one, the CPU): one judge step at a time, each batching its calls.
    executor=multiprocess_executor.configured(
        {"tag_concurrency_limits": [{"key": "peerlake/duckdb", "limit": 1},
                                    {"key": "peerlake/judge", "limit": 1}]}),
)
