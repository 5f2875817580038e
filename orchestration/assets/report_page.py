"""The reliability report page (`peerlake report`) as an asset, so the demo ends with it."""

from dagster import AssetExecutionContext, AssetKey, DataVersion, MaterializeResult, asset

from orchestration.assets.dbt import DUCKDB_TAG
from orchestration.resources import LakeResource

MARTS = ["fct_ai_review_scores", "reliability_repeatability", "reliability_rank_reproducibility",
         "reliability_budgets", "reliability_validity", "reliability_granularity",
         "reliability_distribution_estimation"]


# Reads the marts from the published file, so it runs after (and only after) a publish.
@asset(group_name="reports", op_tags=DUCKDB_TAG, deps=[AssetKey("published_marts"), *(AssetKey(m) for m in MARTS)],
       description="Self-contained HTML page (tables + plots) over the published reliability marts "
                   "→ <lake>/reports/report.html.")
def reliability_report(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from metrics.report import write_report
    from metrics.report.build import content_hash
    from metrics.report.data import load

    root = lake.lake()
    out = write_report(root.duckdb_path, root.root / "reports" / "report.html")
    missing = load(root.duckdb_path).missing
    for table, why in missing.items():
        context.log.warning(f"report section for {table} skipped: {why}")
    return MaterializeResult(
        metadata={"path": str(out), "bytes": out.stat().st_size, "sections_skipped": len(missing)},
        data_version=DataVersion(content_hash(out.read_text(encoding="utf-8"))),
    )


ASSETS = [reliability_report]
