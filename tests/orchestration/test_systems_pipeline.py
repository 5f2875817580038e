"""The reviewer systems through the `peerlake` CLI: the built-in study systems-demo as Dagster assets,
real dbt and GX gates, against a loopback server that answers every request with a valid instance of
the schema it asks for (free text where it asks for none). The embedded model's runs are in
tests/reviewing/systems/test_*_model.py."""

import json

import duckdb
import pytest

from peerlake.warehouse import EventLog, Lake
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.orchestration.conftest import run_cli


def example(schema: dict, n: int):
    """The smallest instance of a (bounded) schema; enums vary with the request number."""
    if "enum" in schema:
        return schema["enum"][n % len(schema["enum"])]
    kind = schema.get("type")
    if kind == "object":
        return {k: example(v, n) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [example(schema["items"], n) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind == "string":
        return "a point"[: schema.get("maxLength", 7)]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    raise AssertionError(f"no example for {schema}")


class SchemaServer(FakeLlmServer):
    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        fmt = body.get("response_format") or {}
        # OpenAI's shape, or the OpenAI-compatible servers' {"type": "json_object", "schema": ...}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = (json.dumps(example(schema, number)) if schema
                                                       else f"Notes number {number} on the paper.")
        return number, Reply(body=payload)


@pytest.fixture
def schema_server():
    with SchemaServer() as server:
        yield server


def _sql(lake_root, q):
    con = duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


def test_the_systems_demo_runs_every_system_and_replays(tmp_path, schema_server):
    lake_root = tmp_path / "lake"
    env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_PROVIDER": "openai_compatible",
           "PEERLAKE_BASE_URL": schema_server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer"}
    first = run_cli(["run", "systems-demo"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    log = EventLog(Lake(lake_root))
    reviews = {e.system: e for e in log.iter_events("system_review")}
    assert set(reviews) == {"mlr", "llm-review", "ai-scientist", "agentreview"}
    assert all(e.status == "ok" and e.paper_id == "demo-001" for e in reviews.values())
    steps = sorted((c.system, c.step) for c in log.iter_events("llm_call"))
    # demo-001 has no appendix: MLR is its three passes; the AI Scientist's one member reviews and
    # reflects once (the example answers never say "I am done"), without a meta-review; AgentReview
    # samples one reviewer; LLM-Review writes its outline.
    assert steps == [("agentreview", "review"), ("ai-scientist", "reflection"), ("ai-scientist", "review"),
                     ("llm-review", "outline"), ("mlr", "pass1"), ("mlr", "pass2"), ("mlr", "pass3")]
    assert schema_server.requests == 7
    assert "reviewer systems: 4 reviews (4 new" in " ".join(first.stdout.split())
    assert reviews["llm-review"].score is None and reviews["mlr"].score is not None

    summary = {r[0]: r[1:] for r in _sql(lake_root, "select system_name, n_reviews, calls_per_review_mean, score_mean "
                                                    "from system_summary where study_id = 'systems-demo'")}
    assert summary["mlr"][:2] == (1, 3.0) and summary["ai-scientist"][:2] == (1, 2.0)
    assert summary["llm-review"][2] is None  # no score: null, never 0
    # the scored systems are in the score marts, each under its own configuration; LLM-Review is not
    scored = _sql(lake_root, "select prompt_template, reviewer_config from fct_ai_review_scores "
                             "where study_id = 'systems-demo' order by 1")
    assert [t for t, _ in scored] == ["agentreview", "ai-scientist", "mlr"]
    assert {c for _, c in scored} == {reviews[s].system_config for s in ("agentreview", "ai-scientist", "mlr")}
    report = (lake_root / "reports" / "systems-demo.html").read_text()
    assert "Reviewer systems" in report

    # The replay is a property of the model steps: the second run skips the (unchanged) build.
    again = run_cli(["run", "systems-demo", "--no-build"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert schema_server.requests == 7 and log.count("system_review") == 4
    assert "reviewer systems: 4 reviews (0 new" in " ".join(again.stdout.split())
    assert "marts not built (--no-build)" in again.stdout
