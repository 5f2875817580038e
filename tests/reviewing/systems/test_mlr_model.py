"""MLR and MLR-Combined end to end on the real embedded model, on demo-001 (2 pages, no appendix):
the machinery only (the call sequence, every prompt within the 4,096-token context, a review
recorded ok or null with a reason, replay), never what the model happens to say (the
smaller embedded model: tests/embedded.py).
Run it under the model lock: flock /tmp/peerlake-model.lock .venv/bin/pytest <this file> -q"""

import itertools
import json

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems.base import SystemReviewRecorder, run_systems


@pytest.mark.model
def test_mlr_runs_on_the_embedded_model(embedded_model, system_log, ingested_paper, make_runs, capsys):
    # (mlr-combined is the same agents with one prompt: its call sequence is checked on the loopback
    # provider in test_mlr.py; one embedded-model run of the three passes keeps `make test` short)
    paper = ingested_paper()
    runs = make_runs("mlr", [paper], provider="local", model=embedded_model)
    outcomes = run_systems(Gateway(system_log), runs, progress=False)
    # 3 calls, plus at most one repair turn per step (repair_attempts = 1)
    calls = sorted(system_log.iter_events("llm_call"), key=lambda e: e.occurred_at)
    for system, expected in (("mlr", ["pass1", "pass2", "pass3"]),):
        steps = [c.step for c in calls if c.system == system]
        assert [s for s, _ in itertools.groupby(steps)] == expected[:len(set(steps))], steps
        assert all(steps.count(s) <= 2 for s in expected), steps
    # Every prompt fit the context: a call over it would have failed, leaving its run unrecorded.
    assert all(o.failed_call is None for o in outcomes), [o.failed_call for o in outcomes]
    assert all(c.status == "ok" for c in calls), [(c.step, c.status, c.error_type) for c in calls]

    rec = SystemReviewRecorder(system_log, study="model-test")
    events = [rec.record(o) for o in outcomes]
    for o, ev in zip(outcomes, events, strict=True):
        assert ev.status == "ok" or (ev.status == "null" and ev.null_reason), ev
        if ev.status == "ok":
            r = o.review
            assert r.score_scale == "neurips_1_10" and r.score in range(1, 11) and r.confidence is None
            assert all(isinstance(x, str) for x in r.strengths + r.weaknesses + r.questions)
            assert r.extra["appendix"] == "no appendix: appendix agent skipped (no call)"
            assert json.loads(ev.review_json)["sections"]["Score"] == str(int(r.score))
        with capsys.disabled():
            print(f"\n{o.run.cfg.system}: {ev.status} {ev.null_reason or ''} score {ev.score}")
    with capsys.disabled():
        for c in calls:
            print(f"  {c.system:<13} {c.step:<9} {c.status:<5} {c.latency_ms / 1000:6.1f} s  "
                  f"in {c.input_tokens} / out {c.output_tokens} tokens")

    # A second run replays every call and records nothing new.
    made = len(calls)
    again = run_systems(Gateway(system_log), make_runs("mlr", [paper], provider="local",
                                                       model=embedded_model), progress=False)
    rec2 = SystemReviewRecorder(system_log, study="model-test")
    assert [rec2.record(o) for o in again] == [None] and rec2.skipped == 1
    assert len(list(system_log.iter_events("llm_call"))) == made
