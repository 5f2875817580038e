"""A model asset under a cost cap: record what the run expects to spend before calling (a
`run_estimated` event with the run id, for cost_estimate_accuracy), and treat calls the cap refused
as work left undone, not as failures: the asset materializes with what it has and says so."""

from peerlake.llm_calls.batch import BatchPending
from peerlake.llm_calls.gateway import CostCapRefused
from peerlake.orchestration.assets.attribution import run_cost_cap

REFUSED = CostCapRefused.__name__  # how a refusal reads in a judgment's failed_call text


def record_estimate(context, log, study, rows_of) -> None:
    """Append this asset's estimate for this run. `rows_of(history)` gives the estimator's rows.
    Informational: a failure to estimate is logged and never stops the run."""
    from peerlake.costs.estimate import Estimate, load_history, run_estimated

    try:
        rows = rows_of(load_history(log))
        if rows:
            log.append(run_estimated(Estimate(study=study.name, rows=rows), context.run.run_id))
    except Exception as exc:  # the estimate is a forecast; the calls are what matter
        context.log.warning(f"could not record the run's cost estimate: {type(exc).__name__}: {exc}")


def is_refused(outcome) -> bool:
    """Left undone rather than failed: refused by the cost cap, or still pending in a provider batch
    (the next run collects it at no extra cost)."""
    return isinstance(outcome, CostCapRefused | BatchPending)


def budget_metadata(context, study, gateway, left_undone: int) -> dict:
    """What the run has spent (every asset of it, from the log), its cap, and what this asset left undone."""
    cap = run_cost_cap(context, study)
    meta = {"run_spent_usd": float(gateway.spent_usd(context.run.run_id)), "left_undone": left_undone}
    if cap is not None:
        meta["cost_cap_usd"] = float(cap)
    if left_undone:
        capped = "" if cap is None else f" ${cap:.2f}"
        context.log.warning(f"cost cap{capped} reached: {left_undone} calls left undone (run spent "
                            f"${meta['run_spent_usd']:.4f}); raise it with `peerlake run {study.name} --max-cost USD`"
                            " and run again: what was made replays for free")
    return meta
