"""A cost cap holds on a reasoning model that spends its whole headroom, and the estimate-vs-actual mart
shows what it cost. The issue's case: an o3 judge whose every call bills its reasoning allowance, under
`--max-cost`. Real gateway, real estimator, real dbt over the sealed events; the loopback server answers
as OpenAI's reasoning models do (tests/doubles/fake_model_rules.py: the reasoning tokens are spent inside
max_completion_tokens, billed as completion tokens).

Worked by hand with the shipped price table's o3 ($2 input, $8 output per million tokens):
  a call sends max_completion_tokens = 50 (answer) + 25,000 (headroom); the server reasons 25,000 tokens
  and answers 30: 25,030 output tokens, 120 prompt tokens -> 120·2 + 25,030·8 = 200,480 µ$ = $0.20048
  bound of call 1: input int(100·0.5) + 1 + 8 = 59 tokens, output 25,050 -> 59·2 + 25,050·8 = 200,518 µ$;
  from call 2 on the gateway has seen 120 tokens for 100 characters: input int(100·1.2) + 1 + 8 = 129 tokens
  -> 129·2 + 25,050·8 = 200,658 µ$
  cap $0.65: calls 1-3 fit (0.40096 + 0.200658 = 0.601618 <= 0.65), call 4 does not (0.60144 + 0.200658)
  Bounded by the answer alone (129·2 + 50·8 = 658 µ$ a call), four calls were made: $0.80, past the cap.
"""

import os

import pytest

from peerlake.costs.estimate import Estimate, load_history, request_rows, run_estimated
from peerlake.llm_calls.cost import load_price_table
from peerlake.llm_calls.gateway import CostCapRefused, Gateway
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.attribution import attributed
from tests.dbt.test_marts import dbt_build, query
from tests.doubles.fake_server import FakeLlmServer, Usage
from tests.llm_calls.support import FAKE_KEYS, providers_for, request

CAP, CALL_USD, HEADROOM = 0.65, 0.20048, 25_000


def judge_call(i: int):
    return request(model="o3", sample_index=i, purpose="judge_depth_labels", prompt_template="judge_depth_labels",
                   messages=({"role": "user", "content": "x" * 100},), response_schema=None,
                   params={"temperature": 0, "max_tokens": 50, "seed": 3000 + i})


@pytest.fixture(scope="module")
def capped_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("reasoning_cap")
    saved = {k: os.environ.get(k) for k in FAKE_KEYS}
    os.environ.update(FAKE_KEYS)
    try:
        log = EventLog(Lake(root / "lake").ensure())
        with FakeLlmServer(usage=Usage(prompt_tokens=120, completion_tokens=30),
                           reasoning_tokens_spent=HEADROOM) as srv:
            gw = Gateway(log, providers=providers_for(srv), price_table=load_price_table())
            requests = [judge_call(i) for i in range(5)]
            estimate = Estimate("S", request_rows("judgments_depth", requests, gw, load_history(log)))
            log.append(run_estimated(estimate, "R1"))
            outcomes = []
            with attributed(study="S", dagster_run_id="R1", asset="judgments_depth", max_cost_usd=CAP):
                for r in requests:
                    try:
                        outcomes.append(gw.call(r))
                    except CostCapRefused as exc:
                        outcomes.append(exc)
            sent = [dict(b) for b in srv.bodies]
            spent = gw.spent_usd("R1")
        log.seal()
        after = request_rows("judgments_depth", [judge_call(9)], gw, load_history(log))
        log.close()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    os.environ["DBT_INDIRECT_SELECTION"] = "cautious"  # as tests/dbt/test_cost_estimate_accuracy.py
    try:
        db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+cost_estimate_accuracy")
    finally:
        del os.environ["DBT_INDIRECT_SELECTION"]
    return {"outcomes": outcomes, "sent": sent, "spent": spent, "estimate": estimate, "after": after, "db": db}


def test_the_cap_is_never_exceeded_by_hidden_reasoning(capped_run):
    made = [o for o in capped_run["outcomes"] if not isinstance(o, Exception)]
    refused = [o for o in capped_run["outcomes"] if isinstance(o, CostCapRefused)]
    assert len(made) == 3 and len(refused) == 2
    assert all(o.usage.output_tokens == HEADROOM + 30 and o.usage.reasoning_tokens == HEADROOM for o in made)
    assert [o.cost_usd for o in made] == pytest.approx([CALL_USD] * 3)
    assert capped_run["spent"] == pytest.approx(3 * CALL_USD) and capped_run["spent"] <= CAP
    assert len(capped_run["sent"]) == 3  # the refused calls were never sent
    assert all(b["max_completion_tokens"] == 50 + HEADROOM for b in capped_run["sent"])
    assert refused[0].estimated_cost_usd == pytest.approx(200_658 / 1e6)


def test_the_dry_run_counts_reasoning_and_says_where_its_figure_comes_from(capped_run):
    # No history: the answer's default share (0.25, 0.60, 1.00 of 50 tokens) plus the medium-effort
    # reasoning prior (1,000, 5,000, 15,000 tokens): 1,012.5 / 5,030 / 15,050 output tokens a call.
    first = capped_run["estimate"].rows[0]
    assert (first["est_output_tokens_lo"], first["est_output_tokens"], first["est_output_tokens_hi"]) == (
        1012.5, 5030.0, 15050.0)
    assert "output default+reasoning prior" in first["basis"]
    # After three calls the lake's own history says 25,030 (never above the 25,050 the request can bill).
    (after,) = capped_run["after"]
    assert after["est_output_tokens"] == 25_030 and "output history:3" in after["basis"]


def test_the_estimate_vs_actual_mart_shows_the_capped_run(capped_run):
    (row,) = query(capped_run["db"], """
        select est_calls, actual_calls, est_output_tokens, est_output_tokens_hi, actual_output_tokens,
               is_output_tokens_in_interval, actual_cost_usd
        from cost_estimate_accuracy where dagster_run_id = 'R1'""")
    est_calls, actual_calls, est_out, est_out_hi, actual_out, in_interval, actual_cost = row
    assert (est_calls, actual_calls) == (5, 3)  # two calls left undone by the cap
    assert (est_out, est_out_hi) == (5 * 5030, 5 * 15050)
    assert actual_out == 3 * (HEADROOM + 30)
    # The interval is of the five estimated calls (5 · 1,012.5 .. 5 · 15,050): the three made, each past the
    # prior's 90th percentile, still fall inside it only because two were left undone.
    assert in_interval is True
    assert actual_cost == pytest.approx(3 * CALL_USD) and actual_cost <= CAP
