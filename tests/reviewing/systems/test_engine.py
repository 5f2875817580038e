"""The reviewer-system engine with a toy two-step system against a loopback provider: lockstep waves,
labels on every llm_call, the repair turn, null-with-reason, a failed call left unrecorded, replay."""

import json
import shutil
from collections.abc import Generator
from typing import ClassVar

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems import register
from peerlake.reviewing.systems.base import (
    PURPOSE,
    ReviewerSystem,
    StepFailed,
    SystemConfig,
    SystemReviewRecorder,
    SystemRun,
    free_text,
    json_fields,
    run_systems,
)
from peerlake.reviewing.systems.normalized import NormalizedReview
from peerlake.warehouse.log import EventLog
from tests.doubles.fake_server import Reply
from tests.judging.support import ScriptedJudgeServer
from tests.llm_calls.support import FAKE_KEYS, providers_for

REPO_PROMPTS = __import__("pathlib").Path(__file__).resolve().parents[3] / "prompts"

NOTES = """{#-
name: toy_notes
version: 1
output_schema: none
description: toy step 1 (free text)
-#}
{% block system %}You take notes.{% endblock %}
{% block user %}NOTES FOR {{ paper }}{% endblock %}
"""
FINAL = """{#-
name: toy_final
version: 1
output_schema: toy_final
description: toy step 2 (JSON)
-#}
{% block system %}You review.{% endblock %}
{% block user %}FINAL FOR {{ paper }} MEMBER {{ member_no }} FROM {{ notes }}{% endblock %}
"""
SCHEMA = {"title": "toy_final", "type": "object", "properties": {"score": {"type": "integer"}},
          "required": ["score"]}


class ToySystem(ReviewerSystem):
    """notes (1 call, free text) → final (an ensemble of `members` JSON calls); score = their mean."""

    name = "toy"
    version = 1
    score_scale = "neurips_1_10"
    defaults: ClassVar[dict] = {"members": 2, "repair_attempts": 1}

    def templates(self, opts):
        return ["toy_notes", "toy_final"]

    def run(self, run: SystemRun) -> Generator:
        notes = yield from run.ask(run.request("notes", "toy_notes", temperature=0.0, paper=run.paper_id),
                                   free_text())
        members = range(run.opts["members"])
        finals = yield from run.ask_all(
            [run.request("final", "toy_final", temperature=0.7, member=m, paper=run.paper_id, member_no=m,
                         notes=notes) for m in members],
            json_fields("score"), members=list(members))
        scores = [f["score"] for f in finals]
        if not all(isinstance(s, int) and 1 <= s <= 10 for s in scores):
            raise StepFailed("final", f"scores off the 1-10 scale: {scores}")
        return NormalizedReview(summary=notes, score=sum(scores) / len(scores), score_scale="neurips_1_10")


class _Package:
    """The engine never reads the package itself (the system does); the toy needs none."""

    removed: ClassVar[list] = []
    records: ClassVar[list] = []


@pytest.fixture
def toy(tmp_path, monkeypatch, lake):
    prompts = tmp_path / "prompts"
    shutil.copytree(REPO_PROMPTS / "templates", prompts / "templates")
    shutil.copytree(REPO_PROMPTS / "schemas", prompts / "schemas")
    (prompts / "templates" / "toy_notes.j2").write_text(NOTES)
    (prompts / "templates" / "toy_final.j2").write_text(FINAL)
    (prompts / "schemas" / "toy_final.json").write_text(json.dumps(SCHEMA))
    monkeypatch.setenv("PEERLAKE_PROMPTS_DIR", str(prompts))
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    register(ToySystem())
    with ScriptedJudgeServer() as server:
        log = EventLog(lake)
        yield log, server, Gateway(log, providers=providers_for(server), max_attempts=2, backoff_base_s=0.01,
                                   backoff_max_s=0.02)


def _runs(papers=("p1", "p2"), members=2, samples=1):
    cfg = SystemConfig(system="toy", provider="openai", model="toy-model", options=(("members", members),
                                                                                   ("repair_attempts", 1)),
                       samples=samples, max_output_tokens=300)
    ident = cfg.identity()
    return [SystemRun(cfg=cfg, system_config=ident, paper_id=p, title=None, package=_Package(),
                      package_sha256="0" * 64, sample=k, study="s") for p in papers for k in range(samples)]


def test_a_system_runs_in_waves_labels_its_calls_and_replays(toy):
    log, server, gateway = toy
    server.answer(None, "NOTES FOR", reply="notes text")
    server.answer("toy_final", "MEMBER 0", reply={"score": 4})
    server.answer("toy_final", "MEMBER 1", reply={"score": 7})
    outcomes = run_systems(gateway, _runs(), progress=False)
    # 2 papers x (1 notes + 2 members) = 6 calls; notes go first for both papers (wave 1)
    assert server.requests == 6 and not server.unmatched
    assert [b["messages"][-1]["content"][:5] for b in server.bodies[:2]] == ["NOTES", "NOTES"]
    assert [o.review.score for o in outcomes] == [5.5, 5.5]  # (4 + 7) / 2
    calls = list(log.iter_events("llm_call"))
    assert {(c.purpose, c.system, c.step) for c in calls} == {(PURPOSE, "toy", "notes"), (PURPOSE, "toy", "final")}
    assert {c.reviewer_config for c in calls} == {outcomes[0].run.system_config}
    temps = sorted((c.step, json.loads(c.params_json)["temperature"]) for c in calls)
    assert temps == [("final", 0.7)] * 4 + [("notes", 0.0)] * 2
    # the two members differ only by their seed: distinct requests, both paid
    seeds = sorted(json.loads(c.params_json)["seed"] for c in calls if c.step == "final")
    assert seeds == [5000, 5000, 5001, 5001]

    rec = SystemReviewRecorder(log, study="s")
    events = [rec.record(o) for o in outcomes]
    assert rec.written == 2 and all(e.status == "ok" and e.score == 5.5 for e in events)
    assert [c["step"] for c in json.loads(events[0].calls_json)] == ["notes", "final", "final"]
    assert [c["member"] for c in json.loads(events[0].calls_json)] == [0, 0, 1]

    # A second run: every call replays, nothing new is recorded.
    again = run_systems(Gateway(log, providers=providers_for(server)), _runs(), progress=False)
    rec2 = SystemReviewRecorder(log, study="s")
    assert [rec2.record(o) for o in again] == [None, None] and rec2.skipped == 2
    assert server.requests == 6
    # More members extend the configuration: a new identity, and only member 2 is new per paper
    # (notes and members 0-1 are the same requests, replayed).
    server.answer("toy_final", "MEMBER 2", reply={"score": 1})
    third = run_systems(Gateway(log, providers=providers_for(server)), _runs(members=3), progress=False)
    assert server.requests == 8 and [o.review.score for o in third] == [4.0, 4.0]  # (4 + 7 + 1) / 3


def test_an_unparseable_step_gets_one_repair_turn_then_a_null_review_with_the_reason(toy):
    log, server, gateway = toy
    server.answer(None, "NOTES FOR", reply="notes")
    server.answer("toy_final", "MEMBER 0", "could not be used", reply={"score": 6})  # the repair answers
    server.answer("toy_final", "MEMBER 0", reply="this is not JSON")
    server.answer("toy_final", "MEMBER 1", reply="not JSON either")  # and its repair too
    [o1] = run_systems(gateway, _runs(papers=("p1",)), progress=False)
    # notes, 2 members, 2 repairs (member 0's succeeds, member 1's fails again) = 5 calls
    assert server.requests == 5
    assert o1.review is None and o1.null_reason == "final: unparseable answer (no JSON object)"
    repair = [b for b in server.bodies if "could not be used" in ScriptedJudgeServer.prompt(b)]
    assert len(repair) == 2 and repair[0]["messages"][-2]["role"] == "assistant"
    ev = SystemReviewRecorder(log).record(o1)
    assert ev.status == "null" and ev.review_json == "{}" and ev.score is None
    assert ev.null_reason == "final: unparseable answer (no JSON object)"
    assert len(json.loads(ev.calls_json)) == 5  # every call behind it, the repairs included


def test_a_failed_call_is_not_recorded_and_the_next_run_finishes_it(toy):
    log, server, gateway = toy
    server.answer(None, "NOTES FOR", reply=Reply(status=400))
    [o1] = run_systems(gateway, _runs(papers=("p1",)), progress=False)
    assert o1.failed_call is not None and not o1.refused and o1.review is None
    assert SystemReviewRecorder(log).record(o1) is None and log.count("system_review") == 0
    server.rules.clear()
    server.answer(None, "NOTES FOR", reply="notes")
    server.answer("toy_final", "MEMBER", reply={"score": 3})
    [o2] = run_systems(Gateway(log, providers=providers_for(server)), _runs(papers=("p1",)), progress=False)
    assert o2.review.score == 3.0 and SystemReviewRecorder(log).record(o2).status == "ok"
