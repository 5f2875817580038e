"""Label every call an asset makes with the study, the Dagster run and the asset (cost attribution),
and carry the run's cost cap to the gateway (warehouse.attribution)."""

import contextlib
from collections.abc import Iterator

from peerlake.warehouse.attribution import CallContext, attributed

MAX_COST_TAG = "peerlake/max_cost_usd"  # set by `peerlake run --max-cost`; overrides the study's cap


def run_cost_cap(context, study) -> float | None:
    tag = context.run.tags.get(MAX_COST_TAG) if context.run is not None else None
    if tag not in (None, ""):
        return float(tag)
    return study.costs.max_cost_usd


@contextlib.contextmanager
def calls_of(context, study) -> Iterator[CallContext]:
    """The calls made in the block are this asset's, in this run, for this study."""
    with attributed(study=study.name, dagster_run_id=context.run.run_id, asset=context.asset_key.to_user_string(),
                    max_cost_usd=run_cost_cap(context, study)) as ctx:
        yield ctx
