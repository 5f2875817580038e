"""One made/replayed count: a call a run made, replayed by the same run (a step retried after its first
attempt made the call), counts once as made, in the result, the gateway's stats, the progress line and
the asset's log line and metadata (what `peerlake run`'s summary prints); another run replays it."""

import io
import re

import pytest
from dagster import DagsterInstance, materialize

from peerlake.llm_calls import progress
from peerlake.llm_calls.gateway import Gateway
from peerlake.orchestration.assets import reviews as reviews_module
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.reviews import ai_reviews
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.warehouse.attribution import attributed
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for, request

LINE = re.compile(r"(?P<done>\d+)/(?P<total>\d+) · .* · made (?P<made>\d+) · replayed (?P<replayed>\d+) · "
                  r"\$(?P<cost>[0-9.]+)")


@pytest.fixture
def lines():
    out = io.StringIO()
    progress.show_progress_on(out)
    yield out
    progress.show_progress_on(None)


def test_a_call_made_then_replayed_by_the_same_run_counts_once_as_made(lake, monkeypatch, lines):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    with FakeLlmServer() as server:  # its usage (120 in, 30 out) is priced for gpt-4.1-mini
        gw = Gateway(EventLog(lake), providers=providers_for(server))
        with attributed(dagster_run_id="run-1"):
            first = gw.call(request(sample_index=0))  # the step's first attempt, which then failed
            before = gw.stats.snapshot()
            again = gw.call_many([request(sample_index=0)], description="retry")[0]  # the retried step
        assert server.requests == 1 and not first.replayed and first.cost_usd > 0
        assert again.replayed and again.made_in_run and again.cost_usd == first.cost_usd
        stats = gw.stats
        assert (stats.made_in_run - before.made_in_run, stats.replayed - before.replayed) == (1, 0)
        assert stats.made_in_run_cost_usd - before.made_in_run_cost_usd == pytest.approx(first.cost_usd)
        assert stats.calls_made == 1  # one provider call, whatever the counts of made say
        line = list(LINE.finditer(lines.getvalue()))[-1]
        assert (line["done"], line["made"], line["replayed"]) == ("1", "1", "0")
        assert float(line["cost"]) == pytest.approx(first.cost_usd, abs=1e-4)

        with attributed(dagster_run_id="run-2"):  # another run: a replay, made by nobody here, free
            before = gw.stats.snapshot()
            other = gw.call_many([request(sample_index=0)], description="rerun")[0]
        assert other.replayed and not other.made_in_run and server.requests == 1
        assert (gw.stats.made_in_run - before.made_in_run, gw.stats.replayed - before.replayed) == (0, 1)
        line = list(LINE.finditer(lines.getvalue()))[-1]
        assert (line["made"], line["replayed"], float(line["cost"])) == ("0", "1", 0.0)


def test_a_retried_review_step_reports_the_calls_its_first_attempt_made_as_made(lake, monkeypatch, lines):
    """The reviews unit makes its calls, then fails once (before it returns); its retry replays them.
    The asset's metadata (what `peerlake run` prints) and log line say made, as the progress line does."""
    monkeypatch.setenv("PEERLAKE_DEMO_ONLY", "demo-001")
    monkeypatch.setenv("PEERLAKE_OPENAI_COMPATIBLE_API_KEY", "sk-test-made")
    attempts = []

    def fail_once(log):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("the unit's first attempt dies after its calls are recorded")
        log.seal()

    monkeypatch.setattr(reviews_module, "seal_unit", fail_once)
    with FakeLlmServer() as server:
        for name, value in {"PEERLAKE_PROVIDER": "openai_compatible", "PEERLAKE_MODEL": "fake-model",
                            "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_SAMPLES": "2"}.items():
            monkeypatch.setenv(name, value)
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("studies", ["demo"])
        result = materialize([manuscripts, ai_reviews], partition_key="demo", instance=instance,
                             resources={"lake": LakeResource(root=str(lake.root)), "reviewer": ReviewerResource()})
        assert result.success and len(attempts) == 2
        assert server.requests == 2  # the retry replayed both reviews: no call was made twice
    meta = {e.asset_key.to_user_string(): e.event_specific_data.materialization.metadata
            for e in result.get_asset_materialization_events()}["ai_reviews"]
    assert (meta["reviews"].value, meta["model_calls_made"].value, meta["replayed"].value) == (2, 2, 0)
    logged = [r.user_message for r in instance.all_logs(result.run_id) if "model calls made" in r.user_message]
    assert logged and "2 model calls made, 0 replayed" in logged[-1], logged
    retry_line = list(LINE.finditer(lines.getvalue()))[-1]
    assert (retry_line["done"], retry_line["made"], retry_line["replayed"]) == ("2", "2", "0"), lines.getvalue()
