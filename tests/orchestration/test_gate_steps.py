"""The Great Expectations gates run as one step per build stage (not one per suite), and a run executes
only the gates of the marts it materialized: each with its own check key and result, a failed one blocking."""

import duckdb
from dagster import AssetKey, DagsterInstance, asset, materialize

from peerlake.orchestration.resources import LakeResource


def _gate_ops():
    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from peerlake.orchestration.assets.checks import GATE_CHECKS

    return GATE_CHECKS


def test_one_gate_step_per_stage_covering_every_suite(lake):
    from peerlake.expectations.gates import GATES, INPUT_GATES, STATISTIC_GATES

    checks = _gate_ops()
    assert len(checks) == 2
    by_op = {c.node_def.name: {(k.asset_key.to_user_string(), k.name) for k in c.check_keys} for c in checks}
    assert by_op == {
        "gx_inputs_gates": {(m, f"gx_{s}") for s, m in INPUT_GATES.items()},
        "gx_statistics_gates": {(m, f"gx_{s}") for s, m in STATISTIC_GATES.items()},
    }
    assert sum(len(v) for v in by_op.values()) == len(GATES)
    assert all(spec.blocking for c in checks for spec in c.check_specs)


def _mart(name: str, sql: str):
    @asset(name=name)
    def _rebuilt(lake: LakeResource) -> None:
        with duckdb.connect(str(lake.lake().candidate_duckdb_path)) as con:
            con.execute(f"create or replace table {name} as {sql}")

    return _rebuilt


def _scores(raw: float) -> str:
    """One unparsed imported review of fct_ai_review_scores whose raw score is `raw` (the protocol's scale
    is 1-10: more than 5 % of reviews off it fails the gate), every other column null."""
    from peerlake.expectations.gates import SUITES

    given = {"review_score_id": "'r1'", "overall_score_raw": f"{raw}::double", "is_parsed": "false",
             "parse_error": "'no json'", "source": "'imported'"}
    return "select " + ", ".join(f"{given.get(c, 'null')} as {c}" for c in SUITES["ai_review_scores"].COLUMNS)


def _evaluations(result) -> dict[str, bool]:
    return {e.event_specific_data.check_name: e.event_specific_data.passed
            for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}


def test_a_run_gates_only_the_marts_it_rebuilt_and_a_failed_gate_fails_its_step(lake):
    checks = _gate_ops()
    lake.candidate_duckdb_path.parent.mkdir(parents=True)
    resources = {"lake": LakeResource(root=str(lake.root))}
    # the scores mart alone is rebuilt: its gate alone runs, of the input stage's, and passes
    ran = materialize([_mart("fct_ai_review_scores", _scores(5)), *checks], resources=resources,
                      instance=DagsterInstance.ephemeral(), selection=[AssetKey("fct_ai_review_scores")])
    assert ran.success
    assert _evaluations(ran) == {"gx_ai_review_scores": True}
    # a raw score of 42 breaks the gate: its result says so and its step fails (blocking)
    failed = materialize([_mart("fct_ai_review_scores", _scores(42)), *checks], resources=resources,
                         instance=DagsterInstance.ephemeral(), selection=[AssetKey("fct_ai_review_scores")],
                         raise_on_error=False)
    assert not failed.success
    assert _evaluations(failed) == {"gx_ai_review_scores": False}
    assert [e.step_key for e in failed.all_events if e.is_step_failure] == ["gx_inputs_gates"]


def test_an_empty_mart_passes_its_gate_without_great_expectations(tmp_path):
    """run_gate on a mart with no rows: passed (tests/expectations/test_empty_marts.py holds that GX says so
    for every suite) without importing great_expectations, ~2.7 s of an empty lake's build."""
    import subprocess
    import sys

    script = f"""
import sys, duckdb
from peerlake.expectations.gates import SUITES, run_gate
path = {str(tmp_path / "c.duckdb")!r}
with duckdb.connect(path) as con:
    con.execute("create table fct_llm_calls as select " + ", ".join(
        f"null::varchar as {{c}}" for c in SUITES["llm_calls"].COLUMNS) + " where false")
    con.execute({"create table fct_ai_review_scores as " + _scores(42)!r})
empty = run_gate("llm_calls", path)
assert "great_expectations" not in sys.modules
assert empty.success and empty.describe() == "gate llm_calls on fct_llm_calls: PASS (0 rows: every expectation holds)"
full = run_gate("ai_review_scores", path)  # one row: validated by GX, and off the scale
assert "great_expectations" in sys.modules and not full.success, full.describe()
assert "overall_score_raw" in full.describe()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
