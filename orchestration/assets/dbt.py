"""All dbt models as Dagster assets. Event-log sources map onto the assets that write them, so the
lineage graph is one piece: manuscripts → stg_events__papers → … → marts."""

from collections.abc import Mapping
from typing import Any

from dagster import AssetExecutionContext, AssetKey
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets

from orchestration.project import peerlake_dbt
from orchestration.resources import LakeResource

# DuckDB allows one process on the file; every step that opens it carries this tag, and the
# executor limits the tag to one step at a time (see definitions.py).
DUCKDB_TAG = {"peerlake/duckdb": "serial"}

SOURCE_ASSETS = {
    "paper_ingested": AssetKey("manuscripts"),
    "human_review_imported": AssetKey("human_reviews"),
    "llm_call": AssetKey("ai_reviews"),
    # Written by `peerlake ingest …` / `peerlake sample` (and, for statuses and rejections, also by
    # the ingest assets); dagster-dbt needs one key per source, so these are external nodes.
    "paper_status_recorded": AssetKey("paper_statuses"),
    "ingest_rejected": AssetKey("ingest_rejections"),
    "external_review_imported": AssetKey("external_reviews"),
    "sample_drawn": AssetKey("paper_samples"),
}


class PeerlakeDbtTranslator(DagsterDbtTranslator):
    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> AssetKey:
        if dbt_resource_props["resource_type"] == "source" and dbt_resource_props["name"] in SOURCE_ASSETS:
            return SOURCE_ASSETS[dbt_resource_props["name"]]
        return super().get_asset_key(dbt_resource_props)

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        return f"dbt_{fqn[1]}" if len(fqn) > 2 else "dbt"


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt,
            dagster_dbt_translator=PeerlakeDbtTranslator(), op_tags=DUCKDB_TAG)
def peerlake_dbt_models(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    from warehouse import settings

    lake.event_log().seal()  # dbt reads sealed segments only
    settings.export_lake_env()
    yield from dbt.cli(["build"], context=context).stream()
