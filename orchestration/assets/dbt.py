"""All dbt models as Dagster assets, in two stages. Event-log sources map onto the assets that write
them (each source's meta.dagster.asset_key), so the lineage graph is one piece: manuscripts →
stg_events__papers → … → marts."""

from collections.abc import Mapping
from typing import Any

from dagster import AssetExecutionContext, AssetKey, Failure, MaterializeResult, asset
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets

from peerlake.expectations.gates import INPUT_GATES
from peerlake.orchestration.build_plan import FULL_REFRESH_TAG, UNIT_TESTS_TAG, reachable
from peerlake.orchestration.dbt_failures import naming_failing_rows
from peerlake.orchestration.dbt_folders import prune_run_folders
from peerlake.orchestration.dbt_manifest import export_dbt_env
from peerlake.orchestration.project import peerlake_dbt
from peerlake.orchestration.resources import LakeResource

# DuckDB allows one process on the file; every step that opens it carries this tag, and the
# executor limits the tag to one step at a time (see definitions.py).
DUCKDB_TAG = {"peerlake/duckdb": "serial"}


class PeerlakeDbtTranslator(DagsterDbtTranslator):
    """A source's key is the asset that writes its events: `meta.dagster.asset_key` in the sources yml
    (models/staging/_events__sources.yml), read by dagster-dbt's own get_asset_key."""

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        return f"dbt_{fqn[1]}" if len(fqn) > 2 else "dbt"


# Two stages, so bad inputs never reach a statistic: stage 1 builds the marts the input gates check
# (scores, human ratings, calls, papers) and everything they are built from; their blocking checks
# run next; only then does stage 2 build the statistics. Both write the candidate file, never the
# published one (warehouse.publish).
INPUT_MARTS = sorted(set(INPUT_GATES.values()))
INPUTS_SELECT = " ".join(f"+{m}" for m in INPUT_MARTS)
AUDITED_INPUTS = AssetKey("audited_inputs")


@asset(group_name="publish", deps=[AssetKey(m) for m in INPUT_MARTS],
       description="Marks that every input mart passed its gate on the candidate; the statistics "
                   "(dbt stage 2) are built only after it.")
def audited_inputs() -> MaterializeResult:
    # A blocking check holds back only the assets downstream of the one it checks. The statistics
    # read intermediate models (never marts), not the gated input marts, so lineage alone would
    # let them run past a failed input gate; this asset sits between the two stages instead.
    return MaterializeResult(metadata={"input_gates": ", ".join(sorted(INPUT_GATES))})


class StatisticsTranslator(PeerlakeDbtTranslator):
    """Stage 2: each model that reads a stage-1 model also waits for `audited_inputs`."""

    def get_asset_spec(self, manifest, unique_id, project):
        spec = super().get_asset_spec(manifest, unique_id, project)
        stage_one = _stage_one_ids(manifest)
        parents = manifest["parent_map"].get(unique_id, [])
        if unique_id.startswith("model.") and unique_id not in stage_one and stage_one.intersection(parents):
            spec = spec.merge_attributes(deps=[AUDITED_INPUTS])
        return spec


_STAGE_ONE: dict[int, set[str]] = {}


def _stage_one_ids(manifest) -> set[str]:
    """The input marts and all their ancestors: what `--select INPUTS_SELECT` builds."""
    if id(manifest) not in _STAGE_ONE:
        marts = {uid for uid, n in manifest["nodes"].items()
                 if n["resource_type"] == "model" and n["name"] in INPUT_MARTS}
        _STAGE_ONE[id(manifest)] = marts | reachable(manifest["parent_map"], marts)
    return _STAGE_ONE[id(manifest)]


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, select=INPUTS_SELECT,
            dagster_dbt_translator=PeerlakeDbtTranslator(), op_tags=DUCKDB_TAG)
def dbt_inputs(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """Stage 1: the input marts, built into a candidate that starts as a copy of the published file."""
    _begin(context, lake)
    yield from _build(context, dbt, lake)


@dbt_assets(manifest=peerlake_dbt.manifest_path, project=peerlake_dbt, exclude=INPUTS_SELECT,
            dagster_dbt_translator=StatisticsTranslator(), op_tags=DUCKDB_TAG)
def dbt_statistics(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """Stage 2: every other model (statistics, costs), from input marts whose gates passed."""
    _begin(context, lake)
    yield from _build(context, dbt, lake)


def _begin(context: AssetExecutionContext, lake: LakeResource) -> None:
    """The run's first dbt step seals the log (dbt reads sealed segments only) and starts the candidate
    from the published file; a build that rebuilds only statistics (orchestration.build_plan) has no
    stage 1, so either stage may be first."""
    from peerlake.warehouse.publish import BUILDING, candidate_status, reset_candidate

    root = lake.lake()
    status = candidate_status(root) or {}
    if not (status.get("state") == BUILDING and status.get("run_id") == context.run.run_id):
        lake.event_log().seal()  # once per build, so both stages read the same committed events
    reset_candidate(root, context.run.run_id)
    export_dbt_env()


def _build(context: AssetExecutionContext, dbt: DbtCliResource, lake: LakeResource):
    """`dbt build` of this step's models, starting from the project's last parse.

    dagster-dbt seeds each invocation with target/partial_parse.msgpack (written by prepare_dbt_manifest's
    `dbt parse`), and dbt reuses it while the profile and the project files are unchanged. Neither names
    a lake: the profile is constant and the lake's file and segments are read when dbt connects (the
    warehouse.duckdb_s3 plugin) and when a model is compiled (macros/source.sql), so every lake starts
    from the same parse instead of parsing from scratch (~4 s per invocation).

    The unit tests run only when the build plan says code changed (BuildPlan.unit_tests): 27 of them cost
    ~3 s of an empty lake's build and test nothing about its data."""
    from peerlake.llm_calls.stopping import stop_requested
    from peerlake.warehouse import settings

    if stop_requested():  # the build was asked to stop (Ctrl-C) while an earlier step ran
        raise Failure(description="not built: the build was asked to stop")
    args = ["build"]
    if context.run.tags.get(UNIT_TESTS_TAG) == "skip":  # no code changed since the published build
        args += ["--exclude-resource-type", "unit_test"]
    if context.run.tags.get(FULL_REFRESH_TAG) == "yes":  # vars, macros or dbt changed, or --force
        args += ["--full-refresh"]
    try:
        yield from naming_failing_rows(dbt.cli(args, context=context), lake.lake())
    finally:
        prune_run_folders(settings.dbt_target_dir())


# What `published_marts` waits for: every mart, so a failed gate on any of them publishes nothing.
MART_KEYS = sorted((k for a in (dbt_inputs, dbt_statistics) for k, spec in a.specs_by_key.items()
                    if spec.group_name == "dbt_marts"),
                   key=lambda k: k.to_user_string())
