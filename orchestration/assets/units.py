"""Work units: a model asset's work as small Dagster steps (plan → one step per unit → collect), so an
executor (multiprocess, Celery, Dask) spreads them over workers, and a unit lost with its worker runs
again elsewhere. A unit is idempotent: the gateway replays what was answered and holds a per-request lock,
so a unit that runs twice pays nothing twice (only a call in flight when its worker died can be).

The asset's materialization (metadata, data_version) is made by the collect step from the units' summaries,
exactly as the one-step asset made it before."""

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from dagster import Backoff, DynamicOutput, Jitter, Output, RetryPolicy

from peerlake.orchestration.assets.attribution import run_cost_cap
from peerlake.warehouse import settings
from peerlake.warehouse.attribution import attributed

T = TypeVar("T")

UNIT_SIZE_ENV = "PEERLAKE_UNIT_SIZE"
UNIT_SIZE_TAG = "peerlake/unit_size"  # set by the runner per executor; overrides the environment
# Items (requests, system runs, reviews to judge) per unit. Small enough that two workers share a study
# of a few papers, large enough that a step's own overhead (~1 s to start) stays below its model calls.
DEFAULT_UNIT_SIZE = 8

# A unit whose worker died is retried (Dagster step retry on an error; the Celery broker redelivers a task
# whose worker vanished, Dask reschedules it). A retry replays what the first attempt recorded.
UNIT_RETRY = RetryPolicy(max_retries=3, delay=2.0, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)


def unit_size(context=None) -> int:
    """Items per unit; 0 means the whole study in one unit (the in-process default, see runner)."""
    tag = context.run.tags.get(UNIT_SIZE_TAG) if context is not None and context.run is not None else None
    raw = tag if tag not in (None, "") else os.environ.get(UNIT_SIZE_ENV, "")
    if raw in (None, ""):
        return DEFAULT_UNIT_SIZE
    try:
        size = int(raw)
    except ValueError:
        size = -1
    if size < 0:
        raise settings.SettingError(f"{UNIT_SIZE_ENV}={raw!r}: expected a whole number >= 0 "
                                    f"(0 = one unit per study; default {DEFAULT_UNIT_SIZE})")
    return size


def chunks(items: Sequence[T], size: int, group: Callable[[T], object] | None = None) -> list[list[T]]:
    """Consecutive items in units of about `size`; items of one group (e.g. one paper) never split, so a
    judge that pools a paper's reviews sees all of them in one unit. size 0: everything in one unit."""
    if not items:
        return []
    if size <= 0:
        return [list(items)]
    groups: list[list[T]] = []
    for item in items:
        if groups and group is not None and group(groups[-1][-1]) == group(item):
            groups[-1].append(item)
        else:
            groups.append([item])
    units: list[list[T]] = [[]]
    for g in groups:
        if units[-1] and len(units[-1]) + len(g) > size:
            units.append([])
        units[-1].extend(g)
    return units


def emit_units(units: Sequence, plan) -> Iterator[Output | DynamicOutput]:
    """The plan step's outputs: one dynamic output per unit (at least one, possibly empty, so the collect
    step always runs and the asset always materializes) and the plan itself for the collect step."""
    for i, unit in enumerate(units or [[]]):
        yield DynamicOutput(list(unit), mapping_key=f"u{i:05d}", output_name="units")
    yield Output(plan, output_name="plan")


@contextlib.contextmanager
def unit_calls(context, study, asset: str) -> Iterator[None]:
    """The unit's calls are the asset's (attribution names the asset, not the unit's step), in this run."""
    with attributed(study=study.name, dagster_run_id=context.run.run_id, asset=asset,
                    max_cost_usd=run_cost_cap(context, study)):
        yield


def seal_unit(log) -> None:
    """Make a unit's events visible to the other machines: on a remote lake (PEERLAKE_LAKE_URL) each machine
    seals its own write-ahead file. On a local lake the collect step's seal takes every process's file, and a
    seal per unit would only re-read the committed keys (its cost grows with the lake)."""
    if settings.lake_url():
        log.seal()


def materialization(metadata: dict, data_version) -> Output:
    """The collect step's output: the asset's metadata and content data version (no value is stored)."""
    with warnings.catch_warnings():  # Output(data_version=...) is marked beta; it is what MaterializeResult sets
        warnings.simplefilter("ignore")
        return Output(None, metadata=metadata, data_version=data_version)
