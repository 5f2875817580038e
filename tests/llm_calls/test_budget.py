"""The cost cap: the gateway refuses the new paid call that could take a run past its cap, keeps what
was made, never refuses a replay or a free model, and shares one run's spending between gateways.

Against the loopback server, which reports 40 prompt and 30 completion tokens per answer, priced with
a test table (input $1000, output $2000 per million tokens = $0.001 and $0.002 per token):
  actual cost per call  = 40·0.001 + 30·0.002 = 0.04 + 0.06 = $0.10
  upper estimate        = input int(100 chars · 0.5) + 1 + 8 (one message) = 59 tokens, output = max_tokens 50
                        = 59·0.001 + 50·0.002 = 0.059 + 0.100 = $0.159
"""

import pytest

from peerlake.llm_calls.cost import parse_price_table
from peerlake.llm_calls.gateway import CostCapRefused, Gateway, LlmCallFailed
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider
from peerlake.warehouse.attribution import attributed
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import FakeLlmServer, Usage
from tests.llm_calls.support import providers_for, request

TABLE = parse_price_table('version = "budget-test-1"\n[[openai."gpt-test"]]\neffective_from = 2000-01-01\n'
                          'checked = 2000-01-01\ninput = 1000.0\noutput = 2000.0\n')
CALL_USD, UPPER_USD = 0.10, 0.159


class FreeServer(OpenAICompatibleProvider):
    free = True  # stands in for the embedded model: cost 0, never capped


@pytest.fixture
def usage_server():
    with FakeLlmServer(usage=Usage(prompt_tokens=40, completion_tokens=30)) as srv:
        yield srv


@pytest.fixture
def gateway_for(lake_log, usage_server):
    def make(**kw) -> Gateway:
        providers = providers_for(usage_server)
        providers["openai_compatible"] = FreeServer(base_url=usage_server.openai_base_url, timeout_s=10.0)
        return Gateway(lake_log, providers=providers, price_table=TABLE, backoff_base_s=0.01, **kw)
    return make


def req(i: int, **kw):
    kw.setdefault("model", "gpt-test")
    return request(sample_index=i, messages=({"role": "user", "content": "x" * 100},), response_schema=None,
                   params={"max_tokens": 50, "seed": i}, **kw)


def test_the_call_that_would_pass_the_cap_is_refused_and_made_calls_are_kept(gateway_for, lake_log, usage_server):
    gw = gateway_for()
    with attributed(study="s", dagster_run_id="run-1", asset="ai_reviews", max_cost_usd=0.35):
        gw.call(req(0))  # 0 + 0.159 <= 0.35: made, spent 0.10
        gw.call(req(1))  # 0.10 + 0.159 = 0.259 <= 0.35: made, spent 0.20
        with pytest.raises(CostCapRefused) as refused:
            gw.call(req(2))  # 0.20 + 0.159 = 0.359 > 0.35: refused, nothing sent
    assert usage_server.requests == 2
    assert isinstance(refused.value, LlmCallFailed)  # callers that handle failures handle this too
    msg = str(refused.value)
    assert "$0.2000" in msg and "$0.35" in msg and "$0.1590" in msg and "--max-cost" in msg
    log = EventLog(lake_log.lake)
    assert len([e for e in log.iter_events("llm_call") if e.status == "ok"]) == 2
    (ev,) = log.iter_events("cost_cap_reached")
    assert (ev.request_key, ev.cap_usd, ev.study, ev.dagster_run_id, ev.asset) == (
        gw.bind(req(2)).request_key, 0.35, "s", "run-1", "ai_reviews")
    assert ev.spent_usd == pytest.approx(0.20)
    assert ev.estimated_cost_usd == pytest.approx(UPPER_USD)
    assert gw.stats.refused_calls == 1


def test_a_replay_is_never_refused_even_under_a_zero_cap(gateway_for, usage_server):
    gw = gateway_for()
    first = gw.call(req(0))
    with attributed(dagster_run_id="run-2", max_cost_usd=0.0):
        again = gateway_for().call(req(0))
    assert again.replayed and again.event_id == first.event_id
    assert usage_server.requests == 1


def test_two_gateways_in_one_run_share_its_spending(gateway_for, lake_log):
    with attributed(dagster_run_id="run-1", max_cost_usd=0.35):
        one = gateway_for()
        one.call(req(0))
        one.call(req(1))  # run-1 has spent 0.20
        other = gateway_for()  # another asset's gateway (or process) in the same run
        with pytest.raises(CostCapRefused):
            other.call(req(2))  # 0.20 + 0.159 > 0.35
    with attributed(dagster_run_id="run-2", max_cost_usd=0.35):
        gateway_for().call(req(2))  # a new run starts at 0
    assert one.spent_usd("run-1") == pytest.approx(2 * CALL_USD)


def test_without_a_run_the_gateway_counts_its_own_spending(gateway_for):
    gw = gateway_for(max_cost_usd=0.30)
    gw.call(req(0))
    gw.call(req(1))  # 0.10 + 0.159 = 0.259 <= 0.30
    with pytest.raises(CostCapRefused):
        gw.call(req(2))  # 0.20 + 0.159 = 0.359 > 0.30
    gateway_for(max_cost_usd=0.30).call(req(2))  # outside a run nothing ties two gateways together


def test_calls_in_flight_are_reserved(lake_log):
    # Each call takes 0.3 s, so the third worker checks while the first two are in flight:
    # 2 · 0.159 = 0.318 <= 0.35, a third 0.477 (or 0.10 + 0.159 + 0.159 = 0.418 once one finished) > 0.35.
    with FakeLlmServer(delay_s=0.3, usage=Usage(prompt_tokens=40, completion_tokens=30)) as srv:
        gw = Gateway(lake_log, providers=providers_for(srv), price_table=TABLE, max_concurrency=3)
        with attributed(dagster_run_id="run-1", max_cost_usd=0.35):
            out = gw.call_many([req(i) for i in range(3)], progress=False, return_exceptions=True)
        assert srv.requests == 2
    assert sum(isinstance(o, CostCapRefused) for o in out) == 1


def test_a_model_without_a_price_cannot_be_bounded_and_is_refused(gateway_for, usage_server):
    with attributed(dagster_run_id="run-1", max_cost_usd=100.0), pytest.raises(CostCapRefused, match="no price"):
        gateway_for().call(req(0, model="unpriced-model"))
    assert usage_server.requests == 0


def test_a_free_model_is_never_refused(gateway_for, usage_server):
    with attributed(dagster_run_id="run-1", max_cost_usd=0.0):
        out = gateway_for().call(req(0, provider="openai_compatible", model="my-local"))
    assert out.cost_usd == 0.0 and not out.replayed
    assert usage_server.requests == 1


def test_no_cap_no_check(gateway_for, lake_log):
    gw = gateway_for()
    for i in range(3):
        gw.call(req(i))  # $0.30, and no cap anywhere
    assert list(EventLog(lake_log.lake).iter_events("cost_cap_reached")) == []
    assert gw.spent_usd() == pytest.approx(3 * CALL_USD)


def test_the_upper_bound_learns_a_model_that_reports_more_tokens_per_character(lake_log):
    # 300 prompt tokens for 100 characters (3 per character, above the 0.5 assumed): a call costs
    # 300·0.001 + 30·0.002 = 0.36. First bound 0.159 (as above); once seen, input int(100·3) + 1 + 8 = 309
    # tokens: 0.309 + 0.100 = 0.409. Cap 1.0: call 2 at 0.36 + 0.409 = 0.769 is made; call 3 at
    # 0.72 + 0.409 = 1.129 is refused (with the fixed 0.159 it would be made: 0.879, and spend 1.08).
    with FakeLlmServer(usage=Usage(prompt_tokens=300, completion_tokens=30)) as srv:
        gw = Gateway(lake_log, providers=providers_for(srv), price_table=TABLE)
        with attributed(dagster_run_id="run-1", max_cost_usd=1.0):
            gw.call(req(0))
            gw.call(req(1))
            with pytest.raises(CostCapRefused) as refused:
                gw.call(req(2))
        assert srv.requests == 2
    assert refused.value.estimated_cost_usd == pytest.approx(0.409)


# ---- what a request lets the provider bill: reasoning, thinking, cache writes, images ----------------
# Bounds read off the providers' documentation (not off model_rules.py): OpenAI's reasoning models bill
# hidden reasoning as output tokens inside max_completion_tokens; Claude's thinking counts inside max_tokens.

def test_an_openai_reasoning_model_is_bounded_by_its_answer_and_its_reasoning_headroom(gateway_for):
    gw = gateway_for()
    o3 = req(0, model="o3")  # max_tokens 50, as asked
    assert gw.output_bound(o3) == 50 + 25_000  # what is sent as max_completion_tokens
    assert gw.output_bound(req(0)) == 50  # a chat model bills at most its answer budget
    # no output limit asked: an OpenAI model may write up to its own maximum, so the bound is the largest
    unbounded = request(model="o3", params={"seed": 0}, messages=({"role": "user", "content": "x"},))
    assert gw.output_bound(unbounded) == 128_000


def test_the_headroom_setting_moves_the_bound(gateway_for, monkeypatch):
    monkeypatch.setenv("PEERLAKE_REASONING_HEADROOM_TOKENS", "4000")
    assert gateway_for().output_bound(req(0, model="o4-mini")) == 50 + 4000


def test_a_claude_thinking_budget_is_billed_on_top_of_the_answer(gateway_for):
    gw = gateway_for()
    thinking = request(provider="anthropic", model="claude-sonnet-4-5",
                       params={"max_tokens": 300, "thinking": {"type": "enabled", "budget_tokens": 2048}})
    assert gw.output_bound(thinking) == 300 + 2048
    plain = request(provider="anthropic", model="claude-sonnet-4-5", params={"max_tokens": 300})
    assert gw.output_bound(plain) == 300


def test_every_input_token_is_bounded_at_the_dearest_input_rate():
    # Anthropic-like rates: input $3, cache write $3.75, cache read $0.30, output $15 per million tokens.
    # 100 characters: int(100 · 0.5) + 1 + 8 = 59 input tokens at $3.75 = 221.25 µ$; 50 output at $15 = 750 µ$.
    from peerlake.llm_calls.budget import upper_cost_usd
    table = parse_price_table('version = "t"\n[[anthropic."claude-t"]]\neffective_from = 2000-01-01\n'
                              'checked = 2000-01-01\ninput = 3.0\ncache_write = 3.75\ncached_input = 0.3\n'
                              'output = 15.0\n')
    r = req(0, provider="anthropic", model="claude-t")
    assert upper_cost_usd(r, table) == pytest.approx((59 * 3.75 + 50 * 15.0) / 1e6)


def test_page_images_count_in_the_input_bound():
    # two images: 59 text tokens + 2 · 4,000 (a patch model's most: 1,536 patches · 2.46 = 3,779) at $1000/M
    from peerlake.llm_calls.budget import upper_usage
    pages = {"role": "user", "content": "x" * 100,
             "images": [{"sha256": c * 64, "media_type": "image/png"} for c in "ab"]}
    r = request(model="gpt-4.1", messages=(pages,), response_schema=None, params={"max_tokens": 50})
    assert upper_usage(r).input_tokens == 59 + 2 * 4_000
    mini = request(model="gpt-4o-mini-2024-07-18", messages=(pages,), response_schema=None, params={"max_tokens": 50})
    assert upper_usage(mini).input_tokens == 59 + 2 * 48_200  # 2,833 + 8 · 5,667 = 48,169 per image at most


# ---- Gemini: thoughts are billed as output and count inside maxOutputTokens --------------------------
GEMINI_TABLE = parse_price_table(TABLE.source_text + '[[gemini."gemini-2.5-flash"]]\neffective_from = 2000-01-01\n'
                                 'checked = 2000-01-01\ninput = 1000.0\noutput = 2000.0\n')


def test_a_gemini_model_spending_its_whole_thinking_budget_never_passes_the_cap(lake_log, usage_server):
    # The loopback Flash thinks 2,000 tokens when let, so with thinking_budget 1,024 it spends all of it,
    # then answers 30 tokens: a call bills 40 input + (30 + 1,024) output tokens
    #   actual = 40·0.001 + 1,054·0.002 = 0.04 + 2.108 = $2.148.
    # Its bound counts the budget: output 50 + 1,024 = 1,074 (maxOutputTokens as sent), input 59 as above:
    #   upper  = 59·0.001 + 1,074·0.002 = 0.059 + 2.148 = $2.207.
    # Cap 5.00: call 2 at 2.148 + 2.207 = 4.355 is made; call 3 at 4.296 + 2.207 = 6.503 is refused. Bounded
    # by the answer budget alone (0.159), call 3 would be made (4.455) and the run would spend $6.444.
    gw = Gateway(lake_log, providers=providers_for(usage_server), price_table=GEMINI_TABLE)

    def think(i):
        return request(provider="gemini", model="gemini-2.5-flash", sample_index=i, response_schema=None,
                       messages=({"role": "user", "content": "x" * 100},),
                       params={"max_tokens": 50, "seed": i, "thinking_budget": 1024})

    assert gw.output_bound(think(0)) == 1_074
    with attributed(dagster_run_id="run-g", max_cost_usd=5.0):
        made = [gw.call(think(0)), gw.call(think(1))]
        with pytest.raises(CostCapRefused) as refused:
            gw.call(think(2))
    assert usage_server.requests == 2 and refused.value.estimated_cost_usd == pytest.approx(2.207)
    assert [(m.usage.output_tokens, m.usage.reasoning_tokens) for m in made] == [(1_054, 1_024)] * 2
    assert gw.spent_usd("run-g") == pytest.approx(2 * 2.148) and gw.spent_usd("run-g") <= 5.0


def test_gemini_bounds_by_family(gateway_for):
    gw = gateway_for()

    def bound(model, **params):
        return gw.output_bound(request(provider="gemini", model=model, params={"max_tokens": 50, **params}))

    assert bound("gemini-2.5-pro") == 50 + 32_768  # dynamic thinking by default: up to its largest budget
    assert bound("gemini-2.5-flash") == 50 + 24_576
    assert bound("gemini-2.5-flash", thinking_budget=0) == 50
    assert bound("gemini-2.5-flash-lite") == 50  # thinks only when asked
    assert bound("gemini-3-pro-preview", thinking_level="low") == 50 + 32_768
    unbounded = request(provider="gemini", model="gemini-2.5-flash-lite", params={"seed": 0})
    assert gw.output_bound(unbounded) == 65_536  # no limit asked: the model's own maximum
