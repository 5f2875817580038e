"""The one Dagster entry point: `dagster dev -m orchestration.definitions` (or `make ui`)."""

from dagster import Definitions, multiprocess_executor

from orchestration.assets import experiments, inbox, judgments, probes, publish, report_page, revision
from orchestration.assets.checks import gate_checks
from orchestration.assets.dbt import DBT_ASSETS
from orchestration.assets.ingest import human_reviews, manuscripts, papers
from orchestration.assets.report import review_summary
from orchestration.assets.reviews import ai_reviews
from orchestration.assets.systems import system_reviews
from orchestration.project import peerlake_dbt
from orchestration.resources import DbtCli, LakeResource, ReviewerResource, step_io_manager

ASSETS = [papers, manuscripts, human_reviews, ai_reviews, system_reviews, *experiments.ASSETS, *revision.ASSETS,
          *probes.ASSETS,
          *judgments.JUDGE_ASSETS,
          judgments.judgments, *DBT_ASSETS, *publish.ASSETS,
          review_summary, *report_page.ASSETS, *inbox.ASSETS]
CHECKS = gate_checks()
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
