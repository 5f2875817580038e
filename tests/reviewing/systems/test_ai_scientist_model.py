"""The AI-Scientist reviewer end to end on the real embedded model, on demo-001 (2 pages), with the
smallest options that exercise the ensemble and its meta-review (ensemble 2, no reflection round: at
most 2 + 1 = 3 calls; the reflection rounds' sequence is test_ai_scientist.py's, on the loopback):
the machinery only (the call sequence, every prompt within the 4,096-token context, a review recorded
ok or null with a reason, replay), never what the model happens to say (the
smaller embedded model: tests/embedded.py).
Run it under the model lock: flock /tmp/peerlake-model.lock .venv/bin/pytest <this file> -q"""


import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems.base import SystemReviewRecorder, run_systems
from peerlake.warehouse import settings

OPTIONS = {"ensemble": 2, "reflections": 0, "repair_attempts": 0}  # no repair: the call count is bounded


@pytest.mark.model
def test_ai_scientist_runs_on_the_embedded_model(embedded_model, system_log, ingested_paper, make_runs, capsys):
    paper = ingested_paper()

    def runs():
        return make_runs("ai-scientist", [paper], provider="local", model=embedded_model, options=OPTIONS)

    [outcome] = run_systems(Gateway(system_log), runs(), progress=False)
    calls = sorted(system_log.iter_events("llm_call"), key=lambda e: e.occurred_at)
    steps = [(c.step, c.round) for c in calls]
    assert outcome.failed_call is None and all(c.status == "ok" for c in calls), steps
    # 2 reviews, then (if both parsed) 1 meta-review
    assert steps[:2] == [("review", 0)] * 2 and len(calls) <= 3, steps
    assert steps[2:] in ([], [("meta", 0)]), steps
    # every prompt as the model counted it left the answer its 800 tokens of the context
    assert all(c.input_tokens + 800 <= settings.local_context_tokens() for c in calls), steps

    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "ok" or (event.status == "null" and event.null_reason), event
    if event.status == "ok":
        assert len(calls) == 3
        r = outcome.review
        assert r.score_scale == "neurips_1_10" and 1 <= r.score <= 10 and 1 <= r.confidence <= 5
        # the mean of two integer ratings is a whole or a half number
        assert (r.score * 2).is_integer() and all(1 <= v <= 4 and (v * 2).is_integer() for v in r.sub_scores.values())
        assert r.recommendation in ("Accept", "Reject") and r.extra["meta_review"] is True
        assert [m["reflection_rounds"] for m in r.extra["members"]] == [0, 0]
        assert r.extra["form"] == "short" and r.extra["reflection_history"] == "last"
    with capsys.disabled():
        print(f"\nai-scientist: {event.status} {event.null_reason or ''} score {event.score}")
        for c in calls:
            print(f"  {c.step:<10} round {c.round}  {c.latency_ms / 1000:6.1f} s  "
                  f"in {c.input_tokens} / out {c.output_tokens} tokens")

    made = len(calls)
    again = run_systems(Gateway(system_log), runs(), progress=False)
    assert len(list(system_log.iter_events("llm_call"))) == made  # replayed: no new call
    assert SystemReviewRecorder(system_log).record(again[0]) is None and system_log.count("system_review") == 1
