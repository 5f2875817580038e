"""The reliability report page (`peerlake report`) as an asset, so the demo ends with it."""

from dagster import AssetExecutionContext, AssetKey, DataVersion, MaterializeResult, MetadataValue, asset

from peerlake.orchestration.assets.dbt import DUCKDB_TAG
from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.resources import LakeResource

MARTS = ["fct_ai_review_scores", "reliability_repeatability", "reliability_rank_reproducibility",
         "reliability_budgets", "reliability_validity", "reliability_granularity",
         "reliability_distribution_estimation"]


# Reads the marts from the published file, so it runs after (and only after) a publish.
@asset(group_name="reports", op_tags=DUCKDB_TAG, deps=[AssetKey("published_marts"), *(AssetKey(m) for m in MARTS)],
       description="Self-contained HTML page (tables + plots) over the published reliability marts "
                   "→ <lake>/reports/<study>.html, one page per study; under every figure, the "
                   "`peerlake audit` command of each row it draws.")
def reliability_report(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from peerlake.report import write_report
    from peerlake.report.build import content_hash
    from peerlake.report.data import load, studies
    from peerlake.warehouse.ids import path_under
    from peerlake.warehouse.studies import check_name

    root = lake.lake()
    data = load(root.duckdb_path)  # one read of the marts for every page
    head = lake.event_log().head()  # shown in each page's footer: a witness of the event log
    # one page per study: a page never mixes the demo's numbers with a user's. A study id comes from an
    # event, so it names a file only when it stays a plain name under reports/.
    pages = {}
    for study in studies(root.duckdb_path):
        try:
            target = path_under(root.root / "reports", f"{check_name(study)}.html")
        except ValueError as exc:
            context.log.warning(f"no report page for study {study!r}: {exc}")
            continue
        pages[study] = write_report(root.duckdb_path, target, study, data, head)
    missing = data.missing
    for table, why in missing.items():
        context.log.warning(f"report section for {table} skipped: {why}")
    return MaterializeResult(
        metadata={"pages": MetadataValue.md("\n".join(f"- {s}: `{p}`" for s, p in pages.items()) or "none"),
                  "sections_skipped": len(missing)},
        data_version=DataVersion(content_version(
            [(s, content_hash(p.read_text(encoding="utf-8"))) for s, p in sorted(pages.items())])),
    )
