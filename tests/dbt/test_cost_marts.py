"""The cost marts built by real dbt over real sealed events: every call priced with the price of its
UTC day from the price table recorded in the lake, batch and cache rates, replays and searches
counted, unknown prices null and flagged. One `dbt build` of the cost models only."""

import json
import shutil
from datetime import UTC, datetime

import duckdb
import pytest
from typer.testing import CliRunner

from peerlake.expectations import run_gate
from peerlake.llm_calls.cost import parse_price_table
from peerlake.warehouse import EventLog, Lake, LlmCall
from peerlake.warehouse.events import CallsReplayed, PriceTableRecorded, RetrievalCall
from tests.dbt.test_marts import dbt_build, query

# gpt-t costs 4 / 0.5 cached / 16 until 2026-02-28, then 2 / 0.25 / 8 with batch 1 / 4 (share 0.5).
TABLE = parse_price_table("""
version = "test-2"
[[openai."gpt-t"]]
effective_from = 2026-01-01
checked = 2026-02-01
input = 4.0
cached_input = 0.5
output = 16.0
[[openai."gpt-t"]]
effective_from = 2026-03-01
checked = 2026-11-30
input = 2.0
cached_input = 0.25
output = 8.0
batch_input = 1.0
batch_output = 4.0
""")
OLD_DAY = datetime(2026, 2, 28, 23, 0, tzinfo=UTC)  # the last hour of the old price (UTC)
NEW_DAY = datetime(2026, 3, 1, 1, 0, tzinfo=UTC)
USAGE = {"input_tokens": 10_000, "cached_input_tokens": 2_000, "cache_write_tokens": 0, "output_tokens": 1_000}
# By hand, USAGE = 8,000 uncached + 2,000 cached input, 1,000 output:
OLD = (8_000 * 4 + 2_000 * 0.5 + 1_000 * 16) / 1e6  # 49,000 µ$ = 0.049
NEW = (8_000 * 2 + 2_000 * 0.25 + 1_000 * 8) / 1e6  # 24,500 µ$ = 0.0245
BATCH = (8_000 * 1 + 2_000 * 0.125 + 1_000 * 4) / 1e6  # 12,250 µ$ = 0.01225
MILLION = 1_000_000 * 2 / 1e6  # c5: 1M uncached input at the new price = 2.0


def _call(cid: str, at: datetime, *, study=None, run=None, asset=None, purpose="review", status="ok",
          provider="openai", model="gpt-t", batch_id=None, usage=None, cost=None, cost_status="priced",
          template="review_v1", phash="h1", config="cfgA") -> LlmCall:
    ok = status == "ok"
    u = usage if usage is not None else (USAGE if ok else {})
    return LlmCall(
        occurred_at=at, request_key=f"key-{cid}", prompt_template=template, prompt_hash=phash,
        reviewer_config=config, purpose=purpose, subject_id="P1", sample_index=0, provider=provider, model=model,
        params_json="{}", request_sha256="0" * 64, response_sha256=("1" * 64) if ok else None,
        response_text="{}" if ok else None, finish_reason="stop" if ok else None,
        input_tokens=u.get("input_tokens"), cached_input_tokens=u.get("cached_input_tokens"),
        cache_write_tokens=u.get("cache_write_tokens"), output_tokens=u.get("output_tokens"),
        reasoning_tokens=0 if ok else None, cost_usd=cost if ok else None,
        cost_status=cost_status if ok else "no_usage", price_table_version="test-2", latency_ms=10.0,
        attempt=1, status=status, error_type=None if ok else "RateLimitError", study=study,
        dagster_run_id=run, asset=asset, batch_id=batch_id)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cost_lake")
    log = EventLog(Lake(root / "lake"))
    s1 = {"study": "S1", "run": "R1", "asset": "ai_reviews"}
    calls = {
        "c1": _call("c1", OLD_DAY, **s1, cost=OLD),
        "c2": _call("c2", NEW_DAY, **s1, cost=NEW),
        "c3": _call("c3", NEW_DAY, **s1, status="error"),
        "c4": _call("c4", NEW_DAY, **s1, batch_id="batch-1", cost=0.5),  # recorded with the old flat half
        "c5": _call("c5", NEW_DAY, study="S2", purpose="judge_depth_units", template="judge_depth_units",
                    phash="hj", config="cfgJ", usage={"input_tokens": 1_000_000, "output_tokens": 0}, cost=MILLION),
        "c6": _call("c6", NEW_DAY, study="S2", purpose="judge_novelty_verify", model="mystery",
                    usage={"input_tokens": 10, "output_tokens": 10}, cost_status="unknown_model"),
        "c7": _call("c7", NEW_DAY, provider="local", model="qwen", cost=0.0, cost_status="free",
                    usage={"input_tokens": 10, "output_tokens": 10}),
    }
    # a second paid answer to c2's request: the seal sets it aside as llm_call_duplicated, still priced
    dup = _call("c2", NEW_DAY, **s1, cost=NEW)
    search = RetrievalCall(occurred_at=NEW_DAY, request_key="search-1", backend="offline", query="q",
                           params_json="{}", results_json="[]", n_results=0, latency_ms=1.0, attempt=1,
                           status="ok", purpose="judge_novelty_retrieval", study="S2")
    # an older, undated table (version 2026.11.1's row shape) that must not price anything
    legacy = PriceTableRecorded(occurred_at=datetime(2026, 1, 1, tzinfo=UTC), version="test-1",
                                source_sha256="0" * 64, prices_json=json.dumps([
                                    {"provider": "openai", "model": "gpt-t", "input": 100.0, "cached_input": 100.0,
                                     "cache_write": 100.0, "output": 100.0}]))
    table = PriceTableRecorded(occurred_at=datetime(2026, 1, 2, tzinfo=UTC), version=TABLE.version,
                               source_sha256="0" * 64, prices_json=json.dumps(TABLE.rows()))
    replays = [
        CallsReplayed(occurred_at=NEW_DAY, door="llm", n=2, request_keys_json='["key-c1", "key-c2"]',
                      answer_event_ids_json=json.dumps([calls["c1"].event_id, calls["c2"].event_id]),
                      study="S2", dagster_run_id="R2", asset="ai_reviews"),
        CallsReplayed(occurred_at=NEW_DAY, door="retrieval", n=1, request_keys_json='["search-1"]',
                      answer_event_ids_json=json.dumps([search.event_id]), study="S2", dagster_run_id="R2",
                      asset="judgments_novelty"),
    ]
    log.append_many([legacy, table, *calls.values(), search, *replays])
    log.seal()
    log.append(dup)  # sealed after c2: a duplicate success
    log.seal()
    log.close()
    with pytest.MonkeyPatch.context() as mp:
        # only tests whose every parent is built (not fct_ai_review_scores' relationship to fct_llm_calls)
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                                    select="+cost_breakdown +fct_llm_calls +cost_by_model")
    return calls, dup, db, run_results


def test_the_build_ran_the_cost_models_tests_and_unit_tests(built):
    *_, run_results = built
    ran = {r["unique_id"].split(".")[-1]: r["status"] for r in run_results["results"]}
    assert {"int_call_costs", "int_cost_facts", "cost_breakdown", "stg_events__price_tables",
            "stg_events__calls_replayed", "test_int_call_costs_prices_each_call_on_its_day",
            "test_int_cost_facts_labels_calls_replays_and_searches",
            "test_cost_breakdown_sums_per_scope_and_never_counts_unknown_cost_as_zero"} <= set(ran)
    assert set(ran.values()) <= {"success", "pass"}, ran


def test_each_call_is_priced_with_the_price_of_its_day(built):
    calls, dup, db, _ = built
    got = {r[0]: r[1:] for r in query(db, """
        select llm_call_id, cost_usd, cost_status, price_effective_from, recorded_cost_usd,
               priced_with_table_version from int_call_costs""")}
    by_id = {ev.event_id: name for name, ev in calls.items()} | {dup.event_id: "dup"}
    got = {by_id[k]: v for k, v in got.items()}
    assert set(got) == {*calls, "dup"}
    expected = {"c1": (OLD, "priced"), "c2": (NEW, "priced"), "dup": (NEW, "priced"), "c3": (None, "no_usage"),
                "c4": (BATCH, "priced"), "c5": (MILLION, "priced"), "c6": (None, "unknown_model"),
                "c7": (0.0, "free")}
    for name, (cost, status) in expected.items():
        assert got[name][1] == status, name
        assert got[name][0] == (pytest.approx(cost) if cost is not None else None), name
    assert str(got["c1"][2]) == "2026-01-01" and str(got["c2"][2]) == "2026-03-01"
    # the recorded cost stays beside the recomputed one (c4 was recorded at 0.5)
    assert got["c4"][3] == pytest.approx(0.5) and got["c1"][4] == "test-2"


def test_fct_llm_calls_carries_attribution_and_the_recomputed_cost(built):
    calls, _, db, _ = built
    rows = {r[0]: r[1:] for r in query(db, """
        select llm_call_id, cost_usd, recomputed_cost_usd, dagster_run_id, asset, batch_id from fct_llm_calls""")}
    c4 = rows[calls["c4"].event_id]
    assert c4[0] == pytest.approx(0.5) and c4[1] == pytest.approx(BATCH) and c4[2:] == ("R1", "ai_reviews", "batch-1")
    assert rows[calls["c5"].event_id][2:4] == (None, None)  # a CLI call: no run, no asset


def breakdown(db, scope: str = "(all studies)") -> dict[tuple[str, str], dict]:
    cols = ["n_attempts", "n_paid_calls", "n_error_attempts", "n_batch_calls", "n_replays", "n_retrieval_calls",
            "n_retrieval_replays", "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd",
            "n_unpriced_calls", "is_cost_complete", "note"]
    rows = query(db, f"select dimension, dimension_value, {', '.join(cols)} from cost_breakdown "
                     f"where study_scope = '{scope}'")
    return {(r[0], r[1]): dict(zip(cols, r[2:], strict=True)) for r in rows}


def test_cost_breakdown_by_study_run_and_day(built):
    _, _, db, _ = built
    b = breakdown(db)
    # S1 paid c1, c2, c4 and the duplicate of c2, and failed once (c3): 0.049 + 0.0245 + 0.01225 + 0.0245
    s1 = b[("study", "S1")]
    assert (s1["n_attempts"], s1["n_paid_calls"], s1["n_error_attempts"], s1["n_batch_calls"]) == (5, 4, 1, 1)
    assert s1["cost_usd"] == pytest.approx(OLD + NEW + BATCH + NEW) and s1["n_unpriced_calls"] == 0
    assert (s1["input_tokens"], s1["cached_input_tokens"], s1["output_tokens"]) == (40_000, 8_000, 4_000)
    # S2 paid c5 (2.0) and c6 (no price: counted, not summed), replayed c1 and c2, searched once and
    # replayed that search once
    s2 = b[("study", "S2")]
    assert (s2["n_attempts"], s2["n_replays"], s2["n_retrieval_calls"], s2["n_retrieval_replays"]) == (2, 2, 1, 1)
    assert s2["cost_usd"] == pytest.approx(MILLION) and s2["n_unpriced_calls"] == 1 and not s2["is_cost_complete"]
    assert b[("study", "(no study)")]["cost_usd"] == 0.0  # c7, the free local call
    assert b[("study", "(no study)")]["note"] == "calls made outside any study"
    # outside Dagster: c5, c6, c7 and the search
    cli = b[("run", "(cli)")]
    assert (cli["n_attempts"], cli["n_retrieval_calls"], cli["n_unpriced_calls"]) == (3, 1, 1)
    assert cli["note"].startswith("calls made outside Dagster")
    assert b[("run", "R2")]["n_replays"] == 2 and b[("run", "R2")]["cost_usd"] is None
    # c1 was the only call on the old price's last day (23:00 UTC)
    assert b[("day", "2026-02-28")]["cost_usd"] == pytest.approx(OLD)
    assert b[("day", "2026-03-01")]["n_attempts"] == 7  # c2, its duplicate, c3 ... c7


def test_cost_breakdown_by_model_judge_and_prompt(built):
    _, _, db, _ = built
    b = breakdown(db)
    gpt = b[("model", "openai/gpt-t")]
    assert (gpt["n_attempts"], gpt["n_replays"]) == (6, 2)
    assert gpt["cost_usd"] == pytest.approx(OLD + NEW + BATCH + NEW + MILLION)
    mystery = b[("model", "openai/mystery")]
    assert mystery["cost_usd"] is None and mystery["n_unpriced_calls"] == 1
    assert b[("judge", "depth")]["cost_usd"] == pytest.approx(MILLION)
    novelty = b[("judge", "novelty")]
    assert (novelty["n_attempts"], novelty["n_retrieval_calls"], novelty["n_retrieval_replays"]) == (1, 1, 1)
    assert b[("prompt", "review_v1@h1")]["n_replays"] == 2
    assert {d for d, _ in b} == {"study", "reviewer_config", "judge", "asset", "run", "model", "prompt", "day"}


def test_a_study_scope_holds_only_what_its_runs_did(built):
    _, _, db, _ = built
    b = breakdown(db, "S2")
    # S2: c5 (2.0) and c6 (unpriced) outside Dagster, the two replays and the replayed search in R2,
    # the search outside Dagster; nothing of S1's
    assert set(b) >= {("study", "S2"), ("run", "R2"), ("run", "(cli)"), ("judge", "depth"), ("judge", "novelty")}
    assert ("study", "S1") not in b and ("run", "R1") not in b
    assert b[("model", "openai/gpt-t")]["cost_usd"] == pytest.approx(MILLION)
    assert b[("model", "openai/gpt-t")]["n_replays"] == 2  # the replays of S1's c1 and c2
    assert b[("day", "2026-03-01")]["n_attempts"] == 2


def test_the_cost_breakdown_gate_passes_on_the_built_mart(built):
    # one gate only (each costs seconds); fct_llm_calls' and cost_by_model's run in the pipeline tests
    result = run_gate("cost_breakdown", built[2])
    assert result.success, result.describe()
    assert result.statistics["rows"] > 0


def test_peerlake_costs_prints_the_published_breakdown(built, tmp_path, monkeypatch):
    from peerlake.cli import app

    _, _, db, _ = built
    lake = tmp_path / "lake"
    lake.mkdir()
    monkeypatch.setenv("PEERLAKE_HOME", str(lake))
    result = CliRunner().invoke(app, ["costs", "--by", "model"])
    assert result.exit_code == 1 and "No published marts yet" in result.output
    duckdb.connect(str(lake / "peerlake.duckdb")).close()  # marts published before cost_breakdown existed
    result = CliRunner().invoke(app, ["costs"])
    assert result.exit_code == 1 and "no cost_breakdown mart" in result.output
    shutil.copy(db, lake / "peerlake.duckdb")  # as publishing would
    result = CliRunner().invoke(app, ["costs", "--by", "model", "--study", "S2", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r for r in json.loads(result.output)}
    assert rows["openai/gpt-t"]["cost_usd"] == pytest.approx(MILLION) and rows["openai/gpt-t"]["replays"] == 2
    assert rows["openai/mystery"]["cost_usd"] is None and rows["openai/mystery"]["unpriced"] == 1
    result = CliRunner().invoke(app, ["costs", "--by", "colour"])
    assert result.exit_code == 2 and "--by must be one of" in result.output
