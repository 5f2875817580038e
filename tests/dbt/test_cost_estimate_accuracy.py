"""cost_estimate_accuracy built by real dbt over real sealed events: a run's recorded estimate (rows the
estimator wrote) beside the calls the run made, and a dry run left out. One `dbt build` of this mart
and what it reads; its GX gate on the result."""

import json
import os
from datetime import UTC, datetime

import pytest

from peerlake.expectations import run_gate
from peerlake.warehouse import EventLog, Lake, LlmCall
from peerlake.warehouse.events import RunEstimated
from tests.dbt.test_marts import dbt_build, query

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _call(cid: str, run: str | None, output_tokens: int, cost: float) -> LlmCall:
    return LlmCall(
        occurred_at=AT, request_key=f"key-{cid}", prompt_template="review_v1", prompt_hash="h", reviewer_config="c",
        purpose="review", subject_id="P1", sample_index=0, provider="openai", model="gpt-t", params_json="{}",
        request_sha256="0" * 64, response_sha256="1" * 64, response_text="{}", finish_reason="stop",
        input_tokens=1000, cached_input_tokens=0, cache_write_tokens=0, output_tokens=output_tokens,
        reasoning_tokens=0, cost_usd=cost, cost_status="priced", price_table_version="t", latency_ms=1.0,
        attempt=1, status="ok", study="S", dagster_run_id=run, asset="ai_reviews")


def _row(key: str | None, new: bool, cost: float) -> dict:
    # the estimator's row shape (costs.estimate._row)
    return {"request_key": key, "asset": "ai_reviews", "purpose": "review", "prompt_template": "review_v1",
            "provider": "openai", "model": "gpt-t", "new": new, "calls": 1.0, "est_input_tokens": 900.0,
            "est_input_tokens_lo": 700.0, "est_input_tokens_hi": 1100.0, "est_output_tokens": 300.0,
            "est_output_tokens_lo": 100.0, "est_output_tokens_hi": 500.0, "est_cost_usd": cost if new else 0.0,
            "est_cost_lo_usd": cost / 2 if new else 0.0, "est_cost_hi_usd": cost * 2 if new else 0.0,
            "basis": "input default; output default"}


def _estimate(run: str | None, rows: list[dict]) -> RunEstimated:
    return RunEstimated(occurred_at=AT, estimate_id=f"est-{run}", study="S", dagster_run_id=run, method="history:v1",
                        rows_json=json.dumps(rows), new_calls=sum(r["new"] for r in rows),
                        replayed_calls=sum(not r["new"] for r in rows), est_cost_usd=None, est_cost_lo_usd=None,
                        est_cost_hi_usd=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("estimate_lake")
    log = EventLog(Lake(root / "lake"))
    log.append_many([
        # R1 expected 3 new calls at 0.25 (0.125..0.5 each) and one replay; the cap let 2 through
        _estimate("R1", [_row("k1", True, 0.25), _row("k2", True, 0.25), _row("k3", True, 0.25),
                         _row("k0", False, 0.25)]),
        _estimate(None, [_row("k9", True, 0.25)]),  # a dry run: not compared
        _call("k1", "R1", 200, 0.25), _call("k2", "R1", 400, 0.5),
        _call("k8", "R2", 100, 0.25),  # a run without an estimate: not in the mart
    ])
    log.seal()
    log.close()
    # cautious: only tests whose every parent is built (fct_ai_review_scores' relationship test on
    # fct_llm_calls would otherwise be selected too, and its mart is not built here)
    os.environ["DBT_INDIRECT_SELECTION"] = "cautious"
    try:
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+cost_estimate_accuracy")
    finally:
        del os.environ["DBT_INDIRECT_SELECTION"]
    ran = {r["unique_id"].split(".")[-1] for r in run_results["results"]}
    assert "test_cost_estimate_accuracy_compares_new_calls_per_run_and_template" in ran  # the yml unit test
    return db


def test_a_run_is_compared_with_its_own_estimate(built):
    rows = query(built, """
        select dagster_run_id, est_calls, actual_calls, est_cost_usd, est_cost_lo_usd, est_cost_hi_usd,
               actual_cost_usd, cost_ratio, calls_ratio, is_cost_in_interval, est_output_tokens,
               actual_output_tokens, is_output_tokens_in_interval
        from cost_estimate_accuracy""")
    # estimated 3 × 0.25 = 0.75 (0.375..1.5), 3 × 300 = 900 output tokens (300..1500);
    # made 2 calls, 0.25 + 0.5 = 0.75 (ratio 1.0, inside), 200 + 400 = 600 tokens (inside); calls 2/3
    (r,) = rows
    assert r[:3] == ("R1", 3, 2)
    assert r[3:8] == pytest.approx((0.75, 0.375, 1.5, 0.75, 1.0))
    assert r[8] == pytest.approx(2 / 3)
    assert r[9] is True and r[10:13] == (900, 600, True)


def test_the_gate_passes(built):
    result = run_gate("cost_estimate_accuracy", built)
    assert result.success, result.describe()
