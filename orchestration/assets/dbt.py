"""All dbt models as Dagster assets, in two stages. Event-log sources map onto the assets that write
them, so the lineage graph is one piece: manuscripts → stg_events__papers → … → marts."""

from collections.abc import Mapping
from typing import Any

from dagster import AssetExecutionContext, AssetKey
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets

from expectations.gates import INPUT_GATES
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
    # written by the study-partitioned model assets (one source, one key: an external node)
    "study_resolved": AssetKey("study_resolutions"),
}


class PeerlakeDbtTranslator(DagsterDbtTranslator):
    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> AssetKey:
        if dbt_resource_props["resource_type"] == "source" and dbt_resource_props["name"] in SOURCE_ASSETS:
            return SOURCE_ASSETS[dbt_resource_props["name"]]
        return super().get_asset_key(dbt_resource_props)

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        return f"dbt_{fqn[1]}" if len(fqn) > 2 else "dbt"


# Two stages, so bad inputs never reach a statistic: stage 1 builds the marts the input gates check
# (scores, human ratings, calls, papers) and everything they are built from; their blocking checks
# run next; only then does stage 2 build the statistics from them. Both write the candidate file,
# never the published one (warehouse.publish).
INPUT_MARTS = sorted(set(INPUT_GATES.values()))
INPUTS_SELECT = " ".join(f"+{m}" for m in INPUT_MARTS)


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, select=INPUTS_SELECT,
            dagster_dbt_translator=PeerlakeDbtTranslator(), op_tags=DUCKDB_TAG)
def dbt_inputs(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """Stage 1: the input marts, built into a candidate that starts as a copy of the published file."""
    from warehouse import settings
    from warehouse.publish import reset_candidate

    lake.event_log().seal()  # dbt reads sealed segments only
    reset_candidate(lake.lake())
    settings.export_lake_env()
    yield from dbt.cli(["build"], context=context).stream()


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, exclude=INPUTS_SELECT,
            dagster_dbt_translator=PeerlakeDbtTranslator(), op_tags=DUCKDB_TAG)
def dbt_statistics(context: AssetExecutionContext, dbt: DbtCliResource):
    """Stage 2: every other model (statistics, costs), from input marts whose gates passed."""
    from warehouse import settings

    settings.export_lake_env()
    yield from dbt.cli(["build"], context=context).stream()


DBT_ASSETS = [dbt_inputs, dbt_statistics]
# What `published_marts` waits for: every mart, so a failed gate on any of them publishes nothing.
MART_KEYS = sorted((k for a in DBT_ASSETS for k, spec in a.specs_by_key.items() if spec.group_name == "dbt_marts"),
                   key=lambda k: k.to_user_string())
