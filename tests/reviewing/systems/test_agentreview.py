"""AgentReview against a loopback provider: three persona reviewers in parallel at temperature 0.9,
the mean rating, one reviewer drawn per paper (the same on every run), the repair turn and the null
review, replay, the paper budget and the plan."""

import json

import pytest

from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.agentreview import BIOGRAPHY, persona
from peerlake.reviewing.systems.base import PURPOSE, SystemOptionError, SystemReviewRecorder, run_systems
from tests.judging.support import ScriptedJudgeServer

SCHEMA = "agentreview_review"


def _review(rating, tag, accept=None):
    return {"overall_rating": rating, "significance_and_novelty": f"{tag} significance",
            "reasons_for_acceptance": accept or [f"{tag} accept {i}" for i in range(1, 5)],
            "reasons_for_rejection": [{"reason": f"{tag} reject {i}", "details": [f"{tag} r{i}a", f"{tag} r{i}b"]}
                                      for i in range(1, 5)],
            "suggestions_for_improvement": [f"{tag} suggest {i}" for i in range(1, 5)]}


def _script(server, ratings=(4, 5, 7)):
    # Each reviewer is told its name after the paper: "You are Reviewer N."
    for n, rating in enumerate(ratings, 1):
        accept = ["shared strength", f"R{n} accept"]  # one strength every reviewer repeats
        server.answer(SCHEMA, f"You are Reviewer {n}.", reply=_review(rating, f"R{n}", accept))


def _user(body) -> str:
    return body["messages"][-1]["content"]


def _by_reviewer(server) -> dict[int, dict]:
    out = {}
    for body in server.bodies:
        n = next(n for n in range(1, 10) if f"You are Reviewer {n}." in _user(body))
        out[n] = body
    return out


def test_three_persona_reviewers_in_parallel_mean_rating_and_replay(system_log, system_server, system_gateway,
                                                                   ingested_paper, make_runs):
    _script(system_server)
    personas = ["benign knowledgeable responsible", "malicious",
                {"knowledgeability": "unknowledgeable", "commitment": "irresponsible"}]
    runs = make_runs("agentreview", [ingested_paper()], options={"personas": personas})
    [out] = run_systems(system_gateway, runs, progress=False)
    assert system_server.requests == 3 and not system_server.unmatched
    bodies = _by_reviewer(system_server)
    for body in bodies.values():
        assert body["temperature"] == 0.9
        assert body["max_completion_tokens"] == 1500  # min(max_tokens 4096, the study's 1500)
        assert ScriptedJudgeServer.schema_title(body) == SCHEMA
    # Each reviewer's biography, and only its own (the source's line order: knowledge, commitment, intention).
    assert _user(bodies[1]).count("Knowledgeability: You are knowledgeable") == 1
    assert [line in _user(bodies[1]) for line in (BIOGRAPHY["knowledgeable"], BIOGRAPHY["responsible"],
                                                  BIOGRAPHY["benign"])] == [True] * 3
    assert BIOGRAPHY["malicious"] in _user(bodies[2]) and "Knowledgeability" not in _user(bodies[2])
    assert "Responsibility" not in _user(bodies[2])
    user3 = _user(bodies[3])
    assert user3.index(BIOGRAPHY["unknowledgeable"]) < user3.index(BIOGRAPHY["irresponsible"])
    assert "Intention" not in user3
    # The rubric and the score control are in every system message.
    system = bodies[1]["messages"][0]["content"]
    assert all(b["messages"][0]["content"] == system for b in bodies.values())
    assert "most papers get an overall rating of 5 or lower before the rebuttal" in system
    assert "Do not give 7 or more before the rebuttal unless" in system
    assert [f"* {a}:" in system for a in (10, 8, 6, 5, 3, 1)] == [True] * 6

    calls = list(system_log.iter_events("llm_call"))
    assert {(c.purpose, c.system, c.step) for c in calls} == {(PURPOSE, "agentreview", "review")}
    # round = member = reviewer index; seeds 5000 + 100*sample + member
    assert sorted((c.round, json.loads(c.params_json)["seed"]) for c in calls) == [(0, 5000), (1, 5001),
                                                                                   (2, 5002)]
    review = out.review
    assert review.score == pytest.approx(16 / 3) and review.score_scale == "agentreview_1_10"  # (4 + 5 + 7) / 3
    # The union in reviewer order, the strength all three gave kept once.
    assert review.strengths == ("shared strength", "R1 accept", "R2 accept", "R3 accept")
    assert review.weaknesses[0] == "R1 reject 1 (R1 r1a; R1 r1b)" and len(review.weaknesses) == 12
    assert review.questions[:2] == ("R1 suggest 1", "R1 suggest 2") and len(review.questions) == 12
    assert review.summary.splitlines() == ["Reviewer 1: R1 significance", "Reviewer 2: R2 significance",
                                           "Reviewer 3: R3 significance"]
    assert review.recommendation is None and review.confidence is None
    assert review.extra["ratings"] == [4, 5, 7]
    assert [e["persona"] for e in review.extra["reviews"]] == [
        {"commitment": "responsible", "intention": "benign", "knowledgeability": "knowledgeable"},
        {"commitment": None, "intention": "malicious", "knowledgeability": None},
        {"commitment": "irresponsible", "intention": None, "knowledgeability": "unknowledgeable"}]
    assert review.sections["Reviewer 2"].startswith("Overall rating: 5\n\nSignificance and novelty: R2 significance")
    assert "   - R3 r4b" in review.sections["Reviewer 3"]

    rec = SystemReviewRecorder(system_log, study="system-test")
    event = rec.record(out)
    assert event.status == "ok" and event.score == pytest.approx(16 / 3)
    assert [c["member"] for c in json.loads(event.calls_json)] == [0, 1, 2]
    # A second run: every call replays, nothing new is recorded.
    [again] = run_systems(system_gateway, make_runs("agentreview", [ingested_paper()],
                                                    options={"personas": personas}), progress=False)
    assert system_server.requests == 3
    assert SystemReviewRecorder(system_log, study="system-test").record(again) is None
    assert system_log.count("system_review") == 1


def test_default_personas_are_benign_knowledgeable_and_responsible(system_server, system_gateway, ingested_paper,
                                                                   make_runs):
    _script(system_server)
    run_systems(system_gateway, make_runs("agentreview", [ingested_paper()]), progress=False)
    assert system_server.requests == 3
    for body in system_server.bodies:
        assert all(BIOGRAPHY[w] in _user(body) for w in ("knowledgeable", "responsible", "benign"))


def test_sample_one_draws_one_reviewer_the_same_on_every_run(system_log, system_server, system_gateway,
                                                             ingested_paper, make_runs):
    _script(system_server)
    paper = ingested_paper()
    runs = make_runs("agentreview", [paper], samples=6, options={"sample_one": True})
    outs = run_systems(system_gateway, runs, progress=False)
    assert system_server.requests == 6  # one call per (paper, sample)
    drawn = [o.review.extra["sampled_reviewer"] for o in outs]
    assert set(drawn) <= {1, 2, 3} and len(set(drawn)) > 1  # six draws from three: all equal has p = 3/3^6
    for k, (out, body) in enumerate(zip(outs, sorted(system_server.bodies, key=lambda b: b["seed"]), strict=True)):
        n = out.review.extra["sampled_reviewer"]
        # the drawn reviewer's own call: its name, its seed (5000 + 100*sample + index), its review as is
        assert f"You are Reviewer {n}." in _user(body) and body["seed"] == 5000 + 100 * k + (n - 1)
        assert out.review.score == float((4, 5, 7)[n - 1])
        assert out.review.strengths == ("shared strength", f"R{n} accept")
        assert out.review.sections["Overall rating"] == str((4, 5, 7)[n - 1])
    assert len({o.review.extra["sample_seed"] for o in outs}) == 6
    # Every run draws the same reviewers: a second run replays all six calls.
    again = run_systems(system_gateway, make_runs("agentreview", [paper], samples=6, options={"sample_one": True}),
                        progress=False)
    assert [o.review.extra["sampled_reviewer"] for o in again] == drawn and system_server.requests == 6
    # The full panel of sample 0 asks the drawn reviewer the very same request: it replays, two are new.
    run_systems(system_gateway, make_runs("agentreview", [paper]), progress=False)
    assert system_server.requests == 8


def test_an_unparseable_reviewer_gets_a_repair_turn_then_the_review_is_null(system_log, system_server,
                                                                            system_gateway, ingested_paper,
                                                                            make_runs):
    _script(system_server)
    system_server.rules.insert(0, (SCHEMA, ("You are Reviewer 2.",), "I think this paper is fine."))
    [out] = run_systems(system_gateway, make_runs("agentreview", [ingested_paper()]), progress=False)
    # 3 reviewers + 1 repair of reviewer 2 (which answers prose again) = 4 calls
    assert system_server.requests == 4
    repair = [b for b in system_server.bodies if "could not be used" in ScriptedJudgeServer.prompt(b)]
    assert len(repair) == 1 and repair[0]["messages"][-2] == {"role": "assistant",
                                                              "content": "I think this paper is fine."}
    assert out.review is None and out.null_reason == "review: unparseable answer (no JSON object)"
    event = SystemReviewRecorder(system_log).record(out)
    assert event.status == "null" and event.score is None and len(json.loads(event.calls_json)) == 4


def test_a_rating_off_the_scale_is_repaired(system_server, system_gateway, ingested_paper, make_runs):
    _script(system_server, ratings=(4, 5, 7))
    # Reviewer 3 first rates 11; told why, it answers 6.
    system_server.rules.insert(0, (SCHEMA, ("You are Reviewer 3.", "could not be used"), _review(6, "R3")))
    system_server.rules.insert(1, (SCHEMA, ("You are Reviewer 3.",), _review(11, "R3")))
    [out] = run_systems(system_gateway, make_runs("agentreview", [ingested_paper()]), progress=False)
    assert system_server.requests == 4
    repair = [b for b in system_server.bodies if "could not be used" in ScriptedJudgeServer.prompt(b)]
    assert "overall_rating 11 is not an integer from 1 to 10" in _user(repair[0])
    assert out.review.score == pytest.approx(5.0)  # (4 + 5 + 6) / 3


def test_the_paper_is_cut_to_the_word_limit_and_the_local_budget(ingested_paper):
    system = get_system("agentreview")
    package = ingested_paper().package
    opts = system.resolve({"max_words": 40})
    text = system.paper_text(opts, package, "openai")
    assert text.endswith("\n[… truncated …]") and len(text.removesuffix("\n[… truncated …]").split()) == 40
    full = package.review_text(max_chars=10**6)
    local = system.paper_text(system.resolve({}), package, "local")
    assert len(local) <= 4000 and (len(full) <= 4000) == (local == full)
    assert len(system.paper_text(system.resolve({"paper_chars": 300}), package, "openai")) <= 300


def test_the_plan_matches_what_a_run_sends(system_server, system_gateway, ingested_paper, make_runs):
    _script(system_server)
    paper = ingested_paper()
    run_systems(system_gateway, make_runs("agentreview", [paper]), progress=False)
    # Default personas are identical, so the three prompts have one size: the plan's input_chars.
    sent = {sum(len(m["content"]) for m in b["messages"]) for b in system_server.bodies}
    system = get_system("agentreview")
    [step] = system.plan(system.resolve({}), paper.package, "openai")
    assert (step.step, step.calls, step.max_output_tokens) == ("review", 3, 4096) and {step.input_chars} == sent
    [one] = system.plan(system.resolve({"sample_one": True}), paper.package, "local")
    assert (one.calls, one.max_output_tokens) == (1, 1000)


@pytest.mark.parametrize(("personas", "message"), [
    ([], "at least one reviewer"),
    (["benign malicious"], "both benign and malicious"),
    (["kind"], "unknown word 'kind'"),
    ([{"mood": "benign"}], "unknown key"),
    ([{"intention": "responsible"}], "intention = 'responsible'"),
])
def test_bad_personas_are_refused_with_what_to_change(personas, message):
    with pytest.raises(SystemOptionError, match=message):
        get_system("agentreview").resolve({"personas": personas})


def test_a_persona_name_and_its_dict_are_the_same_persona():
    assert persona("responsible, benign knowledgeable") == persona(
        {"commitment": "responsible", "intention": "benign", "knowledgeability": "knowledgeable"})
    assert persona("baseline") == {"commitment": None, "intention": None, "knowledgeability": None}
