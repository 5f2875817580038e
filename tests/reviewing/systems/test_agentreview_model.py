"""AgentReview end to end on the real embedded model, on demo-001 (2 pages), with one reviewer drawn
(`sample_one`: 1 call, at most 1 repair): the machinery only (the call, the prompt within the 4,096-token
context, a review recorded ok or null with a reason, replay), never what the model happens to say (the
smaller embedded model: tests/embedded.py).
Run it under the model lock: flock /tmp/peerlake-model.lock .venv/bin/pytest <this file> -q"""

import json

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems.base import SystemReviewRecorder, run_systems


@pytest.mark.model
def test_agentreview_one_drawn_reviewer_runs_on_the_embedded_model(embedded_model, system_log, ingested_paper,
                                                                   make_runs, capsys):
    paper = ingested_paper()

    def runs():
        return make_runs("agentreview", [paper], options={"sample_one": True}, provider="local",
                         model=embedded_model)

    [out] = run_systems(Gateway(system_log), runs(), progress=False)
    calls = sorted(system_log.iter_events("llm_call"), key=lambda e: e.occurred_at)
    # One reviewer's call, plus at most one repair turn; the prompt fit the context (a call over
    # it fails, leaving the run unrecorded).
    assert out.failed_call is None, out.failed_call
    assert 1 <= len(calls) <= 2 and {(c.system, c.step) for c in calls} == {("agentreview", "review")}
    assert all(c.status == "ok" for c in calls), [(c.status, c.error_type) for c in calls]
    assert {c.round for c in calls} == {calls[0].round} and calls[0].round in (0, 1, 2)
    params = json.loads(calls[0].params_json)
    assert (params["temperature"], params["max_tokens"]) == (0.9, 1000)

    ev = SystemReviewRecorder(system_log, study="model-test").record(out)
    assert ev.status == "ok" or (ev.status == "null" and ev.null_reason), ev
    if ev.status == "ok":
        r = out.review
        assert r.score_scale == "agentreview_1_10" and r.score in range(1, 11)
        assert r.extra["sampled_reviewer"] == calls[0].round + 1
        assert all(isinstance(x, str) for x in r.strengths + r.weaknesses + r.questions)
    with capsys.disabled():
        print(f"\nagentreview (sample_one): {ev.status} {ev.null_reason or ''} score {ev.score}")
        for c in calls:
            print(f"  {c.step:<7} round {c.round} {c.status:<5} {c.latency_ms / 1000:6.1f} s  "
                  f"in {c.input_tokens} / out {c.output_tokens} tokens")

    # A second run replays the call and records nothing new.
    [again] = run_systems(Gateway(system_log), runs(), progress=False)
    assert SystemReviewRecorder(system_log, study="model-test").record(again) is None
    assert len(list(system_log.iter_events("llm_call"))) == len(calls)
