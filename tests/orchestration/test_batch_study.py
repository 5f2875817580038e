"""A study in batch mode reviews through the provider's batch API inside Dagster; its calls carry the
run and the asset that made them; a second run replays without submitting anything."""

import duckdb
from dagster import DagsterInstance, materialize

from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.reviews import ai_reviews
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.studies import save_study
from peerlake.warehouse.log import EventLog
from tests.dbt.test_marts import dbt_build
from tests.doubles.fake_server import FakeLlmServer


def test_a_batch_study_reviews_through_the_batch_api(lake, monkeypatch, tmp_path):
    monkeypatch.setenv("PEERLAKE_DEMO_ONLY", "demo-001,demo-002")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch-study")
    monkeypatch.setenv("PEERLAKE_BATCH_POLL_S", "0.01")
    with FakeLlmServer() as server:
        # the SDK's own variable: the hosted provider's default endpoint is the loopback server here
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        save_study(EventLog(lake), "batchy", """name = "batchy"
[papers]
corpus = "demo"
[[reviewers]]
provider = "openai"
model = "gpt-4.1-mini"
samples = 2
[costs]
batch = true
""")
        resources = {"lake": LakeResource(root=str(lake.root)), "reviewer": ReviewerResource()}
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("studies", ["batchy"])
        first = materialize([manuscripts, ai_reviews], resources=resources, instance=instance,
                            partition_key="batchy")
        second = materialize([manuscripts, ai_reviews], resources=resources, instance=instance,
                             partition_key="batchy")
        assert first.success and second.success
        assert server.requests == 0 and len(server.batches.created) == 1  # 2 papers × 2 samples, one batch
    log = EventLog(lake)
    calls = list(log.iter_events("llm_call"))
    assert len(calls) == 4
    assert {(c.batch_id is not None, c.study, c.dagster_run_id, c.asset) for c in calls} == {
        (True, "batchy", first.run_id, "ai_reviews")}
    replays = [r for r in log.iter_events("calls_replayed") if r.dagster_run_id == second.run_id]
    assert sum(r.n for r in replays) == 4
    # dbt sees the batch: submitted once, completed, every request answered
    log.seal()
    db, _ = dbt_build(lake.root, tmp_path / "dbt", db=tmp_path / "batches.duckdb", select="stg_events__llm_batches")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select status, n_requests, n_ok, n_failed, study_id, dagster_run_id "
                           "from stg_events__llm_batches").fetchall()
    finally:
        con.close()
    assert rows == [("completed", 4, 4, 0, "batchy", first.run_id)]
