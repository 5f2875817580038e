"""The whole pipeline through the `peerlake` CLI: real Dagster runs, real dbt, real GX gates.

The model sits behind a loopback OpenAI-compatible server here (the network edge); the test at the
bottom runs the real embedded model.
"""

import duckdb
from dagster import AssetKey, DagsterInstance

from tests.orchestration.conftest import run_cli
from warehouse import EventLog, Lake


def _env(lake_root, server, prompts=None, papers="demo-001,demo-004", samples=2):
    env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_PROVIDER": "openai_compatible",
           "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
           "PEERLAKE_DEMO_ONLY": papers, "PEERLAKE_SAMPLES": str(samples)}
    if prompts:
        env["PEERLAKE_PROMPTS_DIR"] = str(prompts)
    return env


def _calls(lake_root):
    return list(EventLog(Lake(lake_root)).iter_events("llm_call"))


def _sql(lake_root, q):
    con = duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


def _code_version(lake_root, key):
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    ev = inst.get_latest_materialization_event(AssetKey(key))
    return ev.asset_materialization.tags.get("dagster/code_version")


def test_demo_replays_and_a_prompt_edit_rereviews_only(tmp_path, review_server, prompts_copy):
    lake_root = tmp_path / "lake"
    env = _env(lake_root, review_server, prompts_copy)

    first = run_cli(["demo"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Model calls this run: 4 new" in first.stdout
    assert review_server.requests == 4 and len(_calls(lake_root)) == 4
    scores_first = _sql(lake_root, "select paper_id, sample_index, overall_score from fct_ai_review_scores order by 1, 2")
    assert len(scores_first) == 4 and all(s is not None for *_, s in scores_first)
    version_first = _code_version(lake_root, "ai_reviews")

    # Second run: everything replays from the event log — no request reaches the server.
    second = run_cli(["demo"], env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Model calls this run: 0 new" in second.stdout
    assert review_server.requests == 4 and len(_calls(lake_root)) == 4
    assert _sql(lake_root, "select paper_id, sample_index, overall_score from fct_ai_review_scores order by 1, 2") == scores_first

    # Asking for a third sample per paper pays for exactly the new samples.
    more = run_cli(["review", "--samples", "3"], env)
    assert more.returncode == 0, more.stdout + more.stderr
    assert "2 model calls made, 4 replayed" in more.stdout.replace("\n", " ")
    assert review_server.requests == 6 and len(_calls(lake_root)) == 6

    # Editing the reviewer template: new calls for the reviews only, a new code version, both
    # template versions in cost_by_model.
    tpl = prompts_copy / "templates" / "reviewer_scoring.j2"
    tpl.write_text(tpl.read_text().replace("Be critical and specific.", "Be critical, specific and fair."))
    third = run_cli(["demo"], env)
    assert third.returncode == 0, third.stdout + third.stderr
    calls = _calls(lake_root)
    assert review_server.requests == 10 and len(calls) == 10
    assert {c.purpose for c in calls} == {"review"}
    assert _code_version(lake_root, "ai_reviews") != version_first
    rows = _sql(lake_root, "select prompt_template, prompt_hash, n_calls from cost_by_model order by 2")
    assert len(rows) == 2 and rows[0][1] != rows[1][1] and all(r[0] == "reviewer_scoring" for r in rows)
    # An unpriced model: cost is null and counted as unknown, never summed as 0.
    assert _sql(lake_root, "select count(*) from fct_llm_calls where cost_usd is null")[0][0] == 10

    # The runs are in the Dagster instance under the lake, so `make ui` shows them.
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert len(inst.get_runs()) == 4

    out = run_cli(["query", "select prompt_hash, n_calls from cost_by_model"], env)
    assert out.returncode == 0 and out.stdout.count("│") > 4

    ok = run_cli(["verify"], env)
    assert ok.returncode == 0 and "verify OK" in ok.stdout
    seg = next(p for p in (lake_root / "events" / "segments" / "event_type=llm_call").glob("*.parquet")
               if "schema" not in p.name)
    data = bytearray(seg.read_bytes())
    data[100] ^= 0xFF
    seg.write_bytes(bytes(data))
    bad = run_cli(["verify"], env)
    assert bad.returncode == 1
    assert "MISMATCH" in bad.stdout and seg.name in bad.stdout.replace("\n", "")


def test_a_failing_gate_stops_downstream_and_says_which_expectation(tmp_path, review_server):
    review_server.score = 42  # outside the protocol's 1–10
    lake_root = tmp_path / "lake"
    res = run_cli(["demo"], _env(lake_root, review_server, papers="demo-001", samples=1))
    assert res.returncode == 1
    out = res.stdout.replace("\n", " ")
    assert "GATE FAILED" in out and "gx_ai_review_scores" in out and "overall_score" in out
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert inst.get_latest_materialization_event(AssetKey("review_summary")) is None
