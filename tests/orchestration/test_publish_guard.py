"""`published_marts` publishes only a candidate this run built, each mart it rebuilt audited in the same
run. A UI selection of the publish step without the gates (they block only within one run) must not slip
an unaudited candidate through."""

import duckdb
from dagster import DagsterInstance, materialize

from peerlake.orchestration.resources import LakeResource


def test_publish_refuses_a_candidate_whose_gates_did_not_run(lake):
    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from peerlake.orchestration.assets.publish import published_marts

    lake.candidate_duckdb_path.parent.mkdir(parents=True)
    with duckdb.connect(str(lake.candidate_duckdb_path)) as con:
        con.execute("create table fct_ai_review_scores as select 42.0 as overall_score_raw")
    result = materialize([published_marts], resources={"lake": LakeResource(root=str(lake.root))},
                         instance=DagsterInstance.ephemeral(), raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure).event_specific_data.error
    assert "no dbt step of this run built the candidate" in failure.message
    assert not lake.duckdb_path.exists()


def test_publish_refuses_a_mart_rebuilt_without_its_gate(lake):
    """A build may rebuild a few marts (orchestration.build_plan); each one it rebuilt must have passed its
    gate in the run. Here the run makes the candidate and the mart, but not the mart's check."""
    from dagster import AssetExecutionContext, asset

    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from peerlake.orchestration.assets.publish import published_marts
    from peerlake.warehouse.publish import reset_candidate

    @asset(name="fct_ai_review_scores")
    def rebuilt(context: AssetExecutionContext) -> None:
        reset_candidate(lake, context.run.run_id)
        with duckdb.connect(str(lake.candidate_duckdb_path)) as con:
            con.execute("create table fct_ai_review_scores as select 42.0 as overall_score_raw")

    result = materialize([rebuilt, published_marts], resources={"lake": LakeResource(root=str(lake.root))},
                         instance=DagsterInstance.ephemeral(), raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure).event_specific_data.error
    assert "gx_ai_review_scores" in failure.message and "did not pass in this run" in failure.message
    assert not lake.duckdb_path.exists()
