"""The dry run says how long the new calls would take (#48): per provider, calls × the expected seconds of one
call over the calls it runs at once, the expectation this lake's own call times or else the stated prior
(llm_calls.throughput). The expected figures are worked here from the rows and the documented prior."""

from peerlake.costs.plan import wall_time_note
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider
from peerlake.warehouse.log import EventLog


def row(provider: str, model: str, calls: float, inp: float, out: float, *, new: bool = True) -> dict:
    return {"provider": provider, "model": model, "prompt_template": "reviewer_scoring", "new": new, "calls": calls,
            "est_input_tokens": inp, "est_output_tokens": out, "est_output_tokens_hi": 2 * out}


def test_hosted_calls_at_the_prior_run_side_by_side(lake):
    gateway = Gateway(EventLog(lake), providers={"openai": OpenAIProvider(base_url="http://127.0.0.1:9/v1")},
                      max_concurrency=4)
    # 40 new calls at 5 s each, 4 at once: 50 s; a replayed row costs no time
    note = wall_time_note([row("openai", "gpt-4.1-mini", 40, 1000, 300),
                           row("openai", "gpt-4.1-mini", 100, 1000, 300, new=False)], gateway)
    assert note.startswith("time: the 40 new calls would take about 50 s (up to 50 s at the high output)")
    assert "stated prior" in note and "one call at a time" not in note


def test_the_embedded_model_one_call_at_a_time(lake):
    gateway = Gateway(EventLog(lake), max_concurrency=4)
    # the prior: 3,656 prompt tokens at 91.4 tokens/s (40 s) + 227 answer tokens at 22.7/s (10 s) = 50 s a
    # call, one at a time: 12 calls 600 s = 10 min; at the high output (454 tokens, 20 s) 720 s = 12 min
    note = wall_time_note([row("local", "qwen2.5-coder-1.5b-instruct-q4_k_m", 12, 3656, 227)], gateway)
    assert note.startswith("time: the 12 new calls would take about 10 min (up to 12 min at the high output)")
    assert note.endswith("the embedded model answers one call at a time")


def test_nothing_new_says_nothing(lake):
    assert wall_time_note([row("openai", "gpt-4.1-mini", 5, 10, 10, new=False)], Gateway(EventLog(lake))) is None
