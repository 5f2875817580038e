"""Great Expectations suites as blocking asset checks: a failed gate stops everything downstream."""

from dagster import AssetCheckResult, AssetKey, MetadataValue, asset_check

from orchestration.assets.dbt import DUCKDB_TAG
from orchestration.resources import LakeResource


def _gate_check(suite: str, model: str):
    @asset_check(asset=AssetKey(model), name=f"gx_{suite}", blocking=True, op_tags=DUCKDB_TAG,
                 description=f"Great Expectations suite '{suite}' on {model} (blocking).")
    def _check(lake: LakeResource) -> AssetCheckResult:
        from expectations.gates import run_gate

        result = run_gate(suite, lake.lake().duckdb_path)
        return AssetCheckResult(
            passed=result.success,
            description=result.describe(),
            metadata={"failures": MetadataValue.md("\n".join(f"- {f}" for f in result.failures) or "none"),
                      "suite": suite},
        )

    return _check


def gate_checks():
    from expectations.gates import GATES

    return [_gate_check(suite, model) for suite, model in GATES.items()]
