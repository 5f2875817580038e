"""LLM-Review end to end on the real embedded model, on demo-001 (2 pages): the machinery only (one
call labelled outline, the prompt within the 4,096-token context by the model's own tokenizer, a
review recorded ok with a null score or null with a reason, replay), never what the model says.
Run it under the model lock: flock /tmp/peerlake-model.lock .venv/bin/pytest <this file> -q"""


import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems.base import SystemReviewRecorder, run_systems
from peerlake.warehouse import settings


@pytest.mark.model
def test_llm_review_runs_on_the_embedded_model(embedded_model, system_log, ingested_paper, make_runs, capsys):
    paper = ingested_paper()

    def runs():  # repair_attempts 0: exactly one call, whatever the model answers
        return make_runs("llm-review", [paper], provider="local", model=embedded_model,
                         options={"repair_attempts": 0})

    [outcome] = run_systems(Gateway(system_log), runs(), progress=False)
    calls = list(system_log.iter_events("llm_call"))
    assert [(c.system, c.step, c.round, c.status) for c in calls] == [("llm-review", "outline", 0, "ok")]
    assert outcome.failed_call is None
    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "ok" or (event.status == "null" and event.null_reason), event
    assert event.score is None and event.score_scale is None  # LLM-Review gives no score: null, never 0
    if event.status == "ok":
        r = outcome.review
        assert r.summary and r.weaknesses and all(isinstance(x, str) for x in r.strengths + r.weaknesses)
        assert r.extra["tokens_method"].startswith("llama.cpp:") and r.extra["truncated"] is False
        assert 0 < r.extra["paper_tokens"] <= r.extra["token_budget"]  # 2 pages: nothing to cut
    # the prompt as the model counted it left the answer its 1,200 tokens of the context
    assert calls[0].input_tokens + 1200 <= settings.local_context_tokens()
    with capsys.disabled():
        c = calls[0]
        print(f"\nllm-review: {event.status} {event.null_reason or ''}; {c.latency_ms / 1000:.1f} s, "
              f"in {c.input_tokens} / out {c.output_tokens} tokens")

    again = run_systems(Gateway(system_log), runs(), progress=False)
    assert len(list(system_log.iter_events("llm_call"))) == 1  # replayed: no new call
    assert SystemReviewRecorder(system_log).record(again[0]) is None and system_log.count("system_review") == 1
