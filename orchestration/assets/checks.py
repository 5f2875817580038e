"""Great Expectations suites as blocking asset checks on the candidate marts: a failed gate stops
everything downstream, above all `published_marts`, so nothing it saw reaches users.

One step per stage, not one per suite: the input gates (between dbt's two stages) and the statistics
gates each run as one multi-check step, of which a run executes only the checks of the marts it rebuilt
(`can_subset`). A step per suite paid Dagster's step machinery ~49 times a build (STEP_START, the check's
output handling, STEP_SUCCESS and their writes); every gate still reports its own check and its own
result, and a failed one still fails its step, so everything downstream of its stage is skipped."""

from contextlib import closing

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckKey,
    AssetCheckResult,
    AssetCheckSpec,
    AssetKey,
    Failure,
    MetadataValue,
    multi_asset_check,
)

from peerlake.orchestration.assets.dbt import DUCKDB_TAG
from peerlake.orchestration.resources import LakeResource


def _spec(suite: str, model: str) -> AssetCheckSpec:
    return AssetCheckSpec(name=f"gx_{suite}", asset=AssetKey(model), blocking=True,
                          description=f"Great Expectations suite '{suite}' on the candidate {model} (blocking).")


def _check_result(suite: str, model: str, result, lake) -> AssetCheckResult:
    from peerlake.warehouse.publish import record_gate_failure

    if not result.success:  # so `peerlake query` can say why nothing was published
        record_gate_failure(lake, f"gx_{suite}", result.describe())
    return AssetCheckResult(
        asset_key=AssetKey(model), check_name=f"gx_{suite}", passed=result.success,
        description=result.describe(),
        metadata={"failures": MetadataValue.md("\n".join(f"- {f}" for f in result.failures) or "none"),
                  "suite": suite, "model": model},
    )


def _stage_checks(stage: str, gates: dict[str, str]):
    @multi_asset_check(specs=[_spec(s, m) for s, m in sorted(gates.items())], name=f"gx_{stage}_gates",
                       can_subset=True, op_tags=DUCKDB_TAG,
                       description=f"The {stage} stage's Great Expectations gates on the candidate (blocking).")
    def _checks(context: AssetCheckExecutionContext, lake: LakeResource):
        from peerlake.expectations.gates import run_gates
        from peerlake.llm_calls.stopping import stop_requested

        root = lake.lake()
        selected = context.selected_asset_check_keys
        # only the gates of marts this run rebuilt: an unselected one's mart is the published one, audited
        suites = [s for s, m in sorted(gates.items()) if AssetCheckKey(AssetKey(m), f"gx_{s}") in selected]
        if not suites:
            return
        with closing(run_gates(suites, root.candidate_duckdb_path)) as results:  # one connection for all
            for suite in suites:
                if stop_requested():  # the build was asked to stop: a failed check blocks publishing too
                    raise Failure(description=f"gate {suite} not run: the build was asked to stop")
                yield _check_result(suite, gates[suite], next(results), root)

    return _checks


def gate_check_keys() -> list[AssetCheckKey]:
    from peerlake.expectations.gates import GATES

    return [AssetCheckKey(AssetKey(model), f"gx_{suite}") for suite, model in GATES.items()]


def gate_checks():
    from peerlake.expectations.gates import INPUT_GATES, STATISTIC_GATES

    return [_stage_checks("inputs", INPUT_GATES), _stage_checks("statistics", STATISTIC_GATES)]


GATE_CHECKS = gate_checks()  # module level, so orchestration.definitions discovers them
