"""Great Expectations suites as blocking asset checks on the candidate marts: a failed gate stops
everything downstream, above all `published_marts`, so nothing it saw reaches users."""

from dagster import AssetCheckKey, AssetCheckResult, AssetKey, Failure, MetadataValue, asset_check

from peerlake.orchestration.assets.dbt import DUCKDB_TAG
from peerlake.orchestration.resources import LakeResource


def _gate_check(suite: str, model: str):
    @asset_check(asset=AssetKey(model), name=f"gx_{suite}", blocking=True, op_tags=DUCKDB_TAG,
                 description=f"Great Expectations suite '{suite}' on the candidate {model} (blocking).")
    def _check(lake: LakeResource) -> AssetCheckResult:
        from peerlake.expectations.gates import run_gate
        from peerlake.llm_calls.stopping import stop_requested
        from peerlake.warehouse.publish import record_gate_failure

        if stop_requested():  # the build was asked to stop: a failed check blocks publishing too
            raise Failure(description=f"gate {suite} not run: the build was asked to stop")
        root = lake.lake()
        result = run_gate(suite, root.candidate_duckdb_path)
        if not result.success:  # so `peerlake query` can say why nothing was published
            record_gate_failure(root, f"gx_{suite}", result.describe())
        return AssetCheckResult(
            passed=result.success,
            description=result.describe(),
            metadata={"failures": MetadataValue.md("\n".join(f"- {f}" for f in result.failures) or "none"),
                      "suite": suite, "model": model},
        )

    return _check


def gate_check_keys() -> list[AssetCheckKey]:
    from peerlake.expectations.gates import GATES

    return [AssetCheckKey(AssetKey(model), f"gx_{suite}") for suite, model in GATES.items()]


def gate_checks():
    from peerlake.expectations.gates import GATES

    return [_gate_check(suite, model) for suite, model in GATES.items()]


GATE_CHECKS = gate_checks()  # module level, so orchestration.definitions discovers them
