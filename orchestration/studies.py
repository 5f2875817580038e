"""Run a study: its partition of the ingest and model assets, then one build of every mart.

Two Dagster runs, because the study's assets are partitioned by study and the dbt marts are not (they
hold every study, keyed by study_id). Which assets belong to which run is read off the asset graph
(partitions and tags), not kept in a list here."""

from dataclasses import dataclass
from functools import cache

from dagster import AssetKey

from peerlake.llm_calls.stopping import building, stop_requested
from peerlake.orchestration.assets.attribution import MAX_COST_TAG
from peerlake.orchestration.assets.partitions import studies
from peerlake.orchestration.build_plan import AUTO, EXPLICIT
from peerlake.orchestration.runner import PipelineRun, dagster_instance, prepare_dbt_manifest, run_pipeline
from peerlake.warehouse import settings

OPTIONAL_TAG = "peerlake/optional"  # assets a study runs only when asked (e.g. probes)


@dataclass
class StudyRun:
    study: PipelineRun
    build: PipelineRun | None
    build_skipped: bool = False  # asked not to build (`peerlake run --no-build`)

    @property
    def success(self) -> bool:
        if self.build_skipped:
            return self.study.success
        return self.study.success and self.build is not None and self.build.success


@cache  # one parse check and one graph per process: a study run asks for it three times
def _graph():
    prepare_dbt_manifest()
    from peerlake.orchestration.definitions import defs

    return defs.resolve_asset_graph()


def study_asset_keys(probes: bool = False) -> list[str]:
    """The assets partitioned by study (ingest, reviews; with probes the optional ones too)."""
    graph = _graph()
    keys = []
    for key in graph.materializable_asset_keys:
        node = graph.get(key)
        if node.partitions_def != studies:
            continue
        if node.tags.get(OPTIONAL_TAG) and not probes:
            continue
        keys.append(key.to_user_string())
    return sorted(keys)


def build_asset_keys() -> list[str]:
    """Everything that needs no model call and no partition: dbt models, gates, publish, reports."""
    graph = _graph()
    return sorted(k.to_user_string() for k in graph.materializable_asset_keys
                  if graph.get(k).partitions_def is None)


def run_study(study: str, probes: bool = False, tags: dict | None = None,
              max_cost_usd: float | None = None, build: bool = True, executor: str = "in_process") -> StudyRun:
    """The study's run, then the build (unless `build` is false: the marts then wait for the next
    `peerlake build`, e.g. after several studies' runs). `executor` runs the study's steps (the model work,
    in small units) in this process or on workers (orchestration.executors); the build stays in this
    process, because dbt and the gates write one DuckDB file (one writer at a time). `max_cost_usd` caps
    the study's run (a run tag the model assets read; it overrides the study's [costs] max_cost_usd). A run
    the cap stopped early still succeeds with what it made, and the build publishes that."""
    name = study
    instance = dagster_instance()
    if not instance.has_dynamic_partition(studies.name, name):
        instance.add_dynamic_partitions(studies.name, [name])
    tags = {"peerlake/study": name, **(tags or {})}
    if max_cost_usd is not None:
        tags[MAX_COST_TAG] = repr(float(max_cost_usd))
    first = run_pipeline(selection=study_asset_keys(probes), tags=tags, partition_key=name, executor=executor)
    if not first.success:
        return StudyRun(first, None)
    if not build or stop_requested():  # a run asked to stop (Ctrl-C) ends after its model steps
        return StudyRun(first, None, build_skipped=True)
    return StudyRun(first, build_all(tags, mode=AUTO))


def build_all(tags: dict | None = None, mode: str = EXPLICIT) -> PipelineRun:
    """Build what changed since the published build (orchestration.build_plan), gate it and publish; with
    nothing changed, no Dagster run at all. `mode`: auto (after a study's run: run records alone wait),
    explicit (`peerlake build`), force (everything)."""
    from peerlake.orchestration.build_plan import (
        FULL_REFRESH_TAG,
        PLAN_TAG,
        UNIT_TESTS_TAG,
        plan_for_lake,
        stash_plan,
    )
    from peerlake.warehouse import Lake

    with building():  # a stop now cancels dbt and the gates and publishes nothing (llm_calls.stopping)
        lake = Lake(settings.lake_root(), settings.lake_url())
        build = plan_for_lake(lake, mode)
        if build.empty:
            return PipelineRun(success=True, run_id="", plan_summary=build.summary(), skipped=True)
        if stop_requested():  # asked while planning: no Dagster run at all
            return PipelineRun(success=False, run_id="", plan_summary=build.summary())
        tags = {**(tags or {}), PLAN_TAG: stash_plan(lake, build),
                UNIT_TESTS_TAG: "run" if build.unit_tests else "skip",
                FULL_REFRESH_TAG: "yes" if build.full_refresh else "no"}
        if build.full:
            selection = build_asset_keys()
        else:
            graph = _graph()
            dbt_keys = set(build.models)
            selection = sorted(k for k in build_asset_keys() if k in dbt_keys
                               or not graph.get(AssetKey.from_user_string(k)).group_name.startswith("dbt"))
        run = run_pipeline(selection=selection, tags=tags)
    run.plan_summary = build.summary()
    return run
