"""The AI-Scientist reviewer on a loopback provider: the ensemble at 0.75, per-member reflection that
stops on "I am done", the meta-review at 0.1 with the ensemble's means, a repair turn and a null
review with its reason, no meta-review for one member, and a replay that makes no request.

The members' prompts are identical (only the seed tells them apart), so this server answers by
(step, member, round) read from the request itself instead of by text rules."""

import json
import re
from collections.abc import Callable

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.ai_scientist import AiScientistReviewer
from peerlake.reviewing.systems.base import SEED_BASE, SystemOptionError, SystemReviewRecorder, run_systems
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.embedded import require_model
from tests.judging.support import assert_bounded
from tests.llm_calls.support import providers_for


def review(overall: int, confidence: int = 3, rating: int = 2, thought: str = "Notes.", decision: str = "Reject",
           **over) -> dict:
    doc = {"Thought": thought, "Summary": f"A paper (overall {overall}).", "Strengths": ["Clear"],
           "Weaknesses": ["Small evaluation"], "Originality": rating, "Quality": rating, "Clarity": rating,
           "Significance": rating, "Questions": ["Why?"], "Limitations": ["Few datasets"], "Ethical Concerns": False,
           "Soundness": rating, "Presentation": rating, "Contribution": rating, "Overall": overall,
           "Confidence": confidence, "Decision": decision}
    return {**doc, **over}


class StepServer(FakeLlmServer):
    """Answers `respond(step, member, round, body)` (a dict is sent as JSON text, a str as-is), where
    step is review / reflection / meta / repair, read from the request like a log reader would."""

    def __init__(self):
        super().__init__()
        self.respond: Callable[[str, int, int, dict], object] = lambda *a: review(5)
        self.seen: list[tuple[str, int, int, float]] = []

    @staticmethod
    def classify(body: dict) -> tuple[str, int, int]:
        last = body["messages"][-1]["content"]
        member = (body["seed"] - SEED_BASE) % 100
        if last.startswith("Your answer could not be used"):
            return "repair", member, 0
        if "Area Chair" in body["messages"][0]["content"]:
            return "meta", member, 0
        if m := re.match(r"Reflection round (\d+)/", last):
            return "reflection", member, int(m.group(1))
        return "review", member, 0

    def _enter(self, body: dict):
        number, _ = super()._enter(body)
        step, member, rnd = self.classify(body)
        with self._lock:
            self.seen.append((step, member, rnd, body["temperature"]))
        answer = self.respond(step, member, rnd, body)
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = answer if isinstance(answer, str) else json.dumps(answer)
        return number, Reply(body=payload)


@pytest.fixture
def server():
    with StepServer() as s:
        yield s


@pytest.fixture
def gateway(system_log, server):
    return Gateway(system_log, providers=providers_for(server), max_attempts=2, backoff_base_s=0.01,
                   backoff_max_s=0.02)


def test_ensemble_reflections_stop_on_i_am_done_and_the_meta_review_takes_the_means(
        system_log, server, gateway, ingested_paper, make_runs):
    # Members' final answers: m0 Overall 4 (done in round 2), m1 Overall 6 (never done: 3 rounds),
    # m2 Overall 7 (done in round 1). Their first drafts say Overall 9, so a mean over drafts would show.
    finals = {0: review(4, confidence=3, rating=2), 1: review(6, confidence=4, rating=3),
              2: review(7, confidence=4, rating=3)}
    done_in = {0: 2, 2: 1}

    def respond(step, member, rnd, body):
        if step == "review":
            return review(9, thought=f"first draft of member {member}")
        if step == "reflection":
            done = done_in.get(member) == rnd
            thought = "Nothing to change. I am done" if done else f"Refining (round {rnd})."
            return {**finals[member], "Thought": thought}
        return review(9, confidence=5, rating=4, thought="AC notes", decision="Accept")  # the meta-review

    server.respond = respond
    runs = make_runs("ai-scientist", [ingested_paper()], options={"ensemble": 3, "reflections": 3})
    [outcome] = run_systems(gateway, runs, progress=False)

    # 3 reviews + reflections (m0: 2, m1: 3, m2: 1 = 6) + 1 meta = 10 calls
    assert server.requests == 10
    steps = sorted((s, m, r) for s, m, r, _ in server.seen)
    assert steps == sorted([("review", 0, 0), ("review", 1, 0), ("review", 2, 0),
                            ("reflection", 0, 1), ("reflection", 1, 1), ("reflection", 2, 1),
                            ("reflection", 0, 2), ("reflection", 1, 2), ("reflection", 1, 3), ("meta", 0, 0)])
    temps = {s: sorted({t for s2, _, _, t in server.seen if s2 == s}) for s in ("review", "reflection", "meta")}
    assert temps == {"review": [0.75], "reflection": [0.1], "meta": [0.1]}

    # hosted default = the full history: member 1's round 3 carries its draft and rounds 1-2
    # (system, user, then assistant/user pairs for the draft, round 1 and round 2: 2 + 3 x 2 = 8 messages)
    r3 = next(b for b in server.bodies if StepServer.classify(b) == ("reflection", 1, 3))
    assert [m["role"] for m in r3["messages"]] == ["system", "user"] + ["assistant", "user"] * 3
    assert r3["messages"][2]["content"].startswith('{"Thought": "first draft of member 1"')
    assert r3["messages"][-1]["content"].startswith("Reflection round 3/3.")

    # the area chair reads the members' final reviews, without their Thought
    meta_body = next(b for b in server.bodies if StepServer.classify(b)[0] == "meta")
    meta_user = meta_body["messages"][-1]["content"]
    assert "3 reviewers" in meta_body["messages"][0]["content"]
    assert "Review 3/3:" in meta_user and '"Overall": 7' in meta_user and '"Overall": 9' not in meta_user
    assert "Thought" not in meta_user.split("Review 1/3:")[1]

    r = outcome.review
    # means over the final reviews: Overall (4 + 6 + 7) / 3 = 17/3 = 5.667; Confidence (3 + 4 + 4) / 3 = 11/3;
    # every 1-4 rating (2 + 3 + 3) / 3 = 8/3. The meta-review's own numbers (9, 5, 4) are replaced.
    assert r.score == pytest.approx(17 / 3) and r.score_scale == "neurips_1_10"
    assert r.confidence == pytest.approx(11 / 3)
    assert r.sub_scores == pytest.approx(dict.fromkeys(("originality", "quality", "clarity", "significance",
                                                                 "soundness", "presentation", "contribution"), 8 / 3))
    # the meta-review as the original leaves it: means rounded to integers (17/3 -> 6, 11/3 -> 4, 8/3 -> 3)
    assert (r.sections["Overall"], r.sections["Confidence"], r.sections["Soundness"]) == ("6", "4", "3")
    assert r.summary == "A paper (overall 9)." and r.recommendation == "Accept"  # the meta-review's text
    assert r.extra["meta_model_scores"]["Overall"] == 9 and r.extra["meta_review"] is True
    members = r.extra["members"]
    assert [(m["reflection_rounds"], m["said_done"]) for m in members] == [(2, True), (3, False), (1, True)]
    assert [m["review"]["Overall"] for m in members] == [4, 6, 7]

    calls = list(system_log.iter_events("llm_call"))
    assert sorted((c.step, c.round) for c in calls if c.step == "reflection") == sorted(
        [("reflection", 1)] * 3 + [("reflection", 2)] * 2 + [("reflection", 3)])
    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "ok" and event.score == pytest.approx(17 / 3)
    assert len(json.loads(event.calls_json)) == 10

    # replay: no request reaches the server, nothing new is recorded
    again = run_systems(gateway, make_runs("ai-scientist", [ingested_paper()],
                                           options={"ensemble": 3, "reflections": 3}), progress=False)
    assert server.requests == 10 and again[0].review.score == pytest.approx(17 / 3)
    assert SystemReviewRecorder(system_log).record(again[0]) is None and system_log.count("system_review") == 1


def test_a_member_that_never_says_done_reflects_exactly_reflections_times_with_the_last_answer_only(
        server, gateway, ingested_paper, make_runs):
    server.respond = lambda step, member, rnd, body: review(5, thought=f"still changing {rnd}")
    runs = make_runs("ai-scientist", [ingested_paper()],
                     options={"ensemble": 2, "reflections": 4, "reflection_history": "last"})
    [outcome] = run_systems(gateway, runs, progress=False)
    # 2 reviews + 2 members x 4 rounds + 1 meta = 11
    assert server.requests == 11
    assert sorted(r for s, m, r, _ in server.seen if s == "reflection" and m == 1) == [1, 2, 3, 4]
    last = next(b for b in server.bodies if StepServer.classify(b) == ("reflection", 0, 4))
    assert [m["role"] for m in last["messages"]] == ["system", "user", "assistant", "user"]
    assert '"still changing 3"' in last["messages"][2]["content"]
    assert [m["reflection_rounds"] for m in outcome.review.extra["members"]] == [4, 4]


def test_one_member_makes_no_meta_review_and_samples_at_the_low_temperature(server, gateway, ingested_paper,
                                                                          make_runs):
    server.respond = lambda step, member, rnd, body: review(3, confidence=2, rating=1, thought="I am done")
    runs = make_runs("ai-scientist", [ingested_paper()], options={"ensemble": 1, "reflections": 2})
    [outcome] = run_systems(gateway, runs, progress=False)
    # 1 review + 1 reflection (done at once); no meta-review
    assert [(s, r, t) for s, _, r, t in server.seen] == [("review", 0, 0.1), ("reflection", 1, 0.1)]
    r = outcome.review
    assert r.score == 3.0 and r.confidence == 2.0 and r.sub_scores["clarity"] == 1.0
    assert r.extra["meta_review"] is False and r.extra["meta_model_scores"] is None
    assert get_system("ai-scientist").templates({"ensemble": 1, "reflections": 2}) == ["aisci_review",
                                                                                       "aisci_reflection"]


def test_no_reflections_means_review_then_meta(server, gateway, ingested_paper, make_runs):
    runs = make_runs("ai-scientist", [ingested_paper()], options={"ensemble": 2, "reflections": 0})
    [outcome] = run_systems(gateway, runs, progress=False)
    assert sorted(s for s, *_ in server.seen) == ["meta", "review", "review"]
    assert outcome.review.score == 5.0  # both members answer Overall 5


def test_an_unparseable_member_gets_a_repair_turn_then_the_review_is_null_with_the_reason(
        system_log, server, gateway, ingested_paper, make_runs):
    def respond(step, member, rnd, body):
        if member == 1 and step in ("review", "repair"):
            return "THOUGHT: fine paper. REVIEW JSON: (none)"
        return review(5)

    server.respond = respond
    runs = make_runs("ai-scientist", [ingested_paper()], options={"ensemble": 2, "reflections": 2})
    [outcome] = run_systems(gateway, runs, progress=False)
    # 2 reviews, member 1's repair turn, then the step fails: no reflection, no meta-review
    assert sorted(s for s, *_ in server.seen) == ["repair", "review", "review"]
    assert outcome.review is None and outcome.null_reason == "review: unparseable answer (no JSON object)"
    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "null" and event.score is None and event.null_reason == outcome.null_reason


def test_an_out_of_range_rating_is_repaired(server, gateway, ingested_paper, make_runs):
    def respond(step, member, rnd, body):
        if step == "review" and member == 0:
            return review(11)  # Overall is 1-10
        return review(7) if step == "repair" else review(5)

    server.respond = respond
    runs = make_runs("ai-scientist", [ingested_paper()], options={"ensemble": 2, "reflections": 0})
    [outcome] = run_systems(gateway, runs, progress=False)
    repair = next(b for b in server.bodies if StepServer.classify(b)[0] == "repair")
    assert "Overall must be an integer 1-10 (got 11)" in repair["messages"][-1]["content"]
    assert outcome.review.score == 6.0  # members 7 (repaired) and 5: (7 + 5) / 2


def test_options_templates_and_plan(ingested_paper):
    system = get_system("ai-scientist")
    assert isinstance(system, AiScientistReviewer)
    assert system.templates(system.resolve({})) == ["aisci_review", "aisci_reflection", "aisci_meta"]
    for bad in ({"ensemble": 0}, {"few_shot": 2}, {"form": "long"}, {"reflection_history": "some"},
                {"temperature": -1.0}, {"reflections": -1}):
        with pytest.raises(SystemOptionError):
            system.resolve(bad)
    package = ingested_paper().package
    plan = system.plan(system.resolve({}), package, "openai")
    # 5 members; 5 x 5 reflections at most; 1 meta-review
    assert [(p.step, p.calls, p.max_output_tokens) for p in plan] == [("review", 5, 800), ("reflection", 25, 800),
                                                                     ("meta", 1, 800)]
    review_chars, reflection_chars = plan[0].input_chars, plan[1].input_chars
    # full history: a reflection call carries on average (5 + 1) / 2 = 3 earlier turns of >= 800 x 4 characters
    assert reflection_chars > review_chars + 3 * 3200
    last = system.plan(system.resolve({"ensemble": 1, "reflections": 1, "reflection_history": "last"}),
                       package, "openai")
    assert [(p.step, p.calls) for p in last] == [("review", 1), ("reflection", 1)]


def test_templates_share_the_form_and_the_system_message_and_the_schema_is_bounded():
    from peerlake.prompts import load_template

    def form(name: str) -> str:
        src = load_template(name).source
        return src[src.index("## Review form"):src.index("keep the format exact.")]

    assert form("aisci_review") == form("aisci_meta")
    assert load_template("aisci_review").render(form="full", few_shot=1, paper="P")[0] == \
        load_template("aisci_reflection").render(round_no=1, reflections=1)[0]
    assert_bounded(load_template("aisci_review").output_schema)
    assert {load_template(n).output_schema_name for n in ("aisci_review", "aisci_meta", "aisci_reflection")} == \
        {"aisci_review"}


@pytest.mark.model
def test_on_the_embedded_model_the_longest_call_fits_the_context(ingested_paper):
    """Tokenizer only (no generation): on a 13-page paper, the longest member call (review prompt, the
    previous answer at its 800-token limit, the reflection prompt, the answer) fits 4,096 tokens."""

    from peerlake.llm_calls.tokens import count_tokens
    from peerlake.prompts import load_template
    from peerlake.warehouse import settings

    require_model()
    paper = ingested_paper("/work/shared/data/cc_by_pdfs/acl2020_main207_SPECTER.pdf")
    system = get_system("ai-scientist")
    text, info = system.paper(system.resolve({}), paper.package, "local", None, 800)
    review_prompt = load_template("aisci_review").render(form="short", few_shot=1, paper=text)
    reflection = load_template("aisci_reflection").render(round_no=5, reflections=5)[1]
    tokens = sum(count_tokens(m["content"], "local") for m in (*review_prompt, reflection))
    assert info["truncated"] and tokens + 800 + 800 + 64 <= settings.local_context_tokens()


@pytest.mark.model
def test_on_the_embedded_model_five_long_member_reviews_fit_the_meta_prompt():
    """Tokenizer only: five members at the schema's longest (every string at its maxLength) are cut to
    equal shares so the area chair's prompt and its 800-token answer fit 4,096 tokens."""

    from peerlake.llm_calls.tokens import count_tokens
    from peerlake.prompts import load_template
    from peerlake.warehouse import settings

    require_model()
    words = "0123456789" * 44  # Qwen reads each digit as a token: about a token per character, the worst case
    longest = review(5, Summary=words[:400], Strengths=[words[:150]] * 3, Weaknesses=[words[:150]] * 3,
                     Questions=[words[:150]] * 3, Limitations=[words[:150]] * 2)
    system = get_system("ai-scientist")
    texts, share = system.meta_reviews([longest] * 5, system.resolve({}), "local", None, 800)
    messages = load_template("aisci_meta").render(form="short", reviewer_count=5, reviews=texts)
    tokens = sum(count_tokens(m["content"], "local") for m in messages)
    assert share is not None and all(t.endswith("[… truncated …]") for t in texts)
    assert tokens + 800 + 64 <= settings.local_context_tokens()
