"""The constructiveness judge through the real gateway and event log, answers scripted at the network
edge: the comment record, rating validation (dropped / clamped), each null path, failed calls, and
recording once."""

import json

import jsonschema
import pytest

from peerlake.judging import constructiveness
from peerlake.prompts import load_template
from tests.doubles.fake_server import Reply
from tests.judging.support import STUDY, assert_bounded, record, units_of

SUMMARY = "The paper proposes GateNet, a gated adapter for vision transformers."
WEAKNESSES = ("The evaluation is weak. Table 3 reports accuracy on CIFAR-10 only, with a single seed. "
              "The baselines are\nolder methods. The writing is unclear in places.")
SCHEMA = "judge_constructiveness_comments"
OK = {"actionability": 1, "specificity": 1, "justification": 1, "solution": 1, "tone": 1}


def comment(text="Evaluate on more datasets.", anchor="Table 3 reports accuracy", section="weaknesses", **ratings):
    return {"section": section, "text": text, "anchor_quote": anchor, **OK, **ratings}


@pytest.fixture
def review(make_review):
    return make_review(("summary", SUMMARY), ("weaknesses", WEAKNESSES), key="peerlake:abc", paper_id="paper-1",
                       source="peerlake", system="cfg123", sample_index=0)


def judge_one(make_judge_ctx, judge_server, review, comments, **ctx_kw):
    judge_server.answer(SCHEMA, "GateNet", reply={"comments": comments})
    ctx = make_judge_ctx(constructiveness, **ctx_kw)
    (j,) = constructiveness.judge(ctx, [review])
    return ctx, j


def test_comment_record_for_a_hand_made_review(make_judge_ctx, judge_server, judge_log, review):
    comments = [
        comment("Evaluate on more datasets than CIFAR-10 and report several seeds.",
                anchor="Table 3 reports accuracy on CIFAR-10 only", actionability=2, specificity=2, justification=1,
                solution=1, tone=1),
        # 3 and -1 are clamped to 2 and 0 (two ratings clamped); a blank section is no section;
        # an anchor the review does not contain is kept, marked not found
        comment("Compare with recent baselines.", anchor="compares with recent baselines", section=" ",
                actionability=3, specificity=-1, justification=1, solution=2, tone=2),
        {k: v for k, v in comment("Missing tone.").items() if k != "tone"},  # bad_rating
        comment("Half a solution.", solution=1.5),  # bad_rating
        comment(""),  # no_text
        {"text": "Improve the writing.", "anchor_quote": "", "actionability": 2.0, "specificity": 0,
         "justification": 0, "solution": 0, "tone": 2},  # 2.0 is the integer 2; no section, no anchor
    ]
    ctx, j = judge_one(make_judge_ctx, judge_server, review, comments)
    assert j.null_reason is None and j.failed_call is None
    assert j.units == [
        {"comment_index": 0, "text": "Evaluate on more datasets than CIFAR-10 and report several seeds.",
         "section": "weaknesses", "anchor_quote": "Table 3 reports accuracy on CIFAR-10 only", "anchor_found": True,
         "actionability": 2, "specificity": 2, "justification": 1, "solution": 1, "tone": 1},
        {"comment_index": 1, "text": "Compare with recent baselines.", "section": None,
         "anchor_quote": "compares with recent baselines", "anchor_found": False,
         "actionability": 2, "specificity": 0, "justification": 1, "solution": 2, "tone": 2},
        {"comment_index": 5, "text": "Improve the writing.", "section": None, "anchor_quote": None,
         "anchor_found": False, "actionability": 2, "specificity": 0, "justification": 0, "solution": 0, "tone": 2},
    ]
    assert all(type(u[r]) is int for u in j.units for r in constructiveness.RATINGS)
    assert j.dropped == {"clamped": 2, "bad_rating": 2, "no_text": 1}
    assert j.inputs["source"] == "peerlake" and j.inputs["system"] == "cfg123"

    _, (ev,) = record(ctx, constructiveness, [j])
    assert (ev.status, ev.judge, ev.step, ev.subject_key, ev.study) == ("ok", "constructiveness", "comments",
                                                                        "peerlake:abc", STUDY)
    assert units_of(ev) == j.units and json.loads(ev.dropped_json) == j.dropped
    (call,) = judge_log.iter_events("llm_call")
    assert (call.purpose, call.study, call.subject_id, call.sample_index) == (
        "judge_constructiveness_comments", STUDY, "peerlake:abc", 0)
    assert json.loads(ev.llm_call_ids_json) == [call.event_id]
    (body,) = judge_server.bodies
    assert body["max_completion_tokens"] == 700 and WEAKNESSES in judge_server.prompt(body)


@pytest.mark.parametrize("bad", [None, "2", 1.5, True, [1]])
def test_a_missing_or_non_integer_rating_drops_the_comment(make_judge_ctx, judge_server, review, bad):
    _, j = judge_one(make_judge_ctx, judge_server, review, [comment(justification=bad), comment("Kept.")])
    assert [u["text"] for u in j.units] == ["Kept."] and j.dropped == {"bad_rating": 1}


def test_out_of_range_ratings_are_clamped_and_counted(make_judge_ctx, judge_server, review):
    _, j = judge_one(make_judge_ctx, judge_server, review,
                     [comment(actionability=5, specificity=-2, justification=2, solution=0, tone=1)])
    (u,) = j.units
    # 5 -> 2 and -2 -> 0: two ratings clamped, the comment kept
    assert [u[r] for r in constructiveness.RATINGS] == [2, 0, 2, 0, 1] and j.dropped == {"clamped": 2}


CAP6 = (("constructiveness_comments", 6),)


def test_under_a_cap_more_comments_than_the_schema_allows_are_cut_and_counted(make_judge_ctx, judge_server,
                                                                             review):
    # a provider without grammar decoding may list 8; the cap (the embedded model's 6) keeps the first 6
    _, j = judge_one(make_judge_ctx, judge_server, review, [comment(f"Point {k}.") for k in range(8)], caps=CAP6)
    assert [u["comment_index"] for u in j.units] == [0, 1, 2, 3, 4, 5] and j.dropped == {"over_max_comments": 2}
    assert (j.inputs["max_comments"], j.inputs["comments_answered"]) == (6, 8)
    (body,) = judge_server.bodies
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["comments"]["maxItems"] == 6 and "at most 6" in judge_server.prompt(body)
    assert body["max_completion_tokens"] == 700  # the 6-comment answer's budget, as the embedded model had


def test_a_hosted_judge_keeps_every_comment_and_is_asked_for_all(make_judge_ctx, judge_server, review):
    # no cap on a hosted model (PRISM's judge lists every comment): nothing cut, the schema unbounded
    _, j = judge_one(make_judge_ctx, judge_server, review, [comment(f"Point {k}.") for k in range(8)])
    assert [u["comment_index"] for u in j.units] == list(range(8)) and j.dropped == {}
    assert j.inputs["max_comments"] is None
    (body,) = judge_server.bodies
    assert "maxItems" not in body["response_format"]["json_schema"]["schema"]["properties"]["comments"]
    prompt = judge_server.prompt(body)
    assert "ALL its atomic comments" in prompt and "at most" not in prompt and "most important" not in prompt


def test_a_hosted_answer_budget_grows_with_the_review(make_judge_ctx, judge_server, make_review):
    # 12,000 characters of review: ~100 comments of 105 tokens would not fit 700 tokens
    long = make_review(("weaknesses", "The evaluation is weak on GateNet. " * 343), key="human:long")
    judge_server.answer(SCHEMA, reply={"comments": [comment()]})
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [long], max_chars=20_000)
    (body,) = judge_server.bodies
    assert j.inputs["chars_judged"] > 12_000
    assert body["max_completion_tokens"] == 70 + 105 * (j.inputs["chars_judged"] // 120 + 1) > 10_000


def test_questions_and_suggestions_are_read(make_judge_ctx, judge_server, make_review):
    """Constructiveness reads every section (PRISM): a human's Questions too, not only its argument."""
    human = make_review(("summary", SUMMARY), ("strengths", "Clear."), ("weaknesses", WEAKNESSES),
                        ("questions", "Why only one seed on GateNet?"),
                        ("other_comments_or_suggestions", "Add a GateNet ablation."))
    judge_server.answer(SCHEMA, reply={"comments": [comment()]})
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [human])
    prompt = judge_server.prompt(judge_server.bodies[0])
    assert "Why only one seed on GateNet?" in prompt and "Add a GateNet ablation." in prompt
    assert j.inputs["fields"] == ["summary", "strengths", "weaknesses", "questions", "other_comments_or_suggestions"]
    assert j.inputs["view"] == "constructiveness" and j.inputs["fields_not_read"] == []


def test_empty_review_is_null_without_a_call(make_judge_ctx, judge_server, make_review, review):
    judge_server.answer(SCHEMA, "GateNet", reply={"comments": [comment()]})
    ctx = make_judge_ctx(constructiveness)
    j_empty, j_full = constructiveness.judge(ctx, [make_review(key="human:empty"), review])
    assert j_empty.null_reason == "empty_review" and j_empty.results == []
    assert j_full.null_reason is None and judge_server.requests == 1
    _, events = record(ctx, constructiveness, [j_empty])
    assert (events[0].status, events[0].null_reason, units_of(events[0])) == ("null", "empty_review", [])


@pytest.mark.parametrize("bad", ["Here are my thoughts: the review is fine.", {"atomic_comments": []},
                                 {"comments": {"text": "not a list"}}, "[1, 2]"])
def test_unparseable_answer(make_judge_ctx, judge_server, review, bad):
    judge_server.answer(SCHEMA, reply=bad)
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [review])
    assert j.null_reason == "unparseable:comments" and j.failed_call is None and len(j.results) == 1


def test_answer_wrapped_in_prose_is_read(make_judge_ctx, judge_server, review):
    text = "Sure!\n```json\n" + json.dumps({"comments": [comment()]}) + "\n```"
    judge_server.answer(SCHEMA, reply=text)
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [review])
    assert j.null_reason is None and len(j.units) == 1


@pytest.mark.parametrize("comments, dropped", [([], {}), ([comment(""), comment(tone="rude")],
                                                         {"no_text": 1, "bad_rating": 1})])
def test_no_comments(make_judge_ctx, judge_server, review, comments, dropped):
    ctx, j = judge_one(make_judge_ctx, judge_server, review, comments)
    assert j.null_reason == "no_comments" and j.units == [] and j.dropped == dropped
    _, (ev,) = record(ctx, constructiveness, [j])
    assert ev.status == "null" and ev.null_reason == "no_comments" and json.loads(ev.dropped_json) == dropped


def test_failed_call_is_not_recorded_and_retried_next_run(make_judge_ctx, judge_server, judge_log, review):
    judge_server.answer(SCHEMA, reply=Reply(status=400))
    ctx = make_judge_ctx(constructiveness)
    (j,) = constructiveness.judge(ctx, [review])
    assert j.failed_call is not None and "LlmCallFailed" in j.failed_call
    rec, events = record(ctx, constructiveness, [j])
    assert events == [] and rec.failed == 1 and judge_log.count("judgment_recorded") == 0
    judge_server.rules.clear()
    judge_server.answer(SCHEMA, reply={"comments": [comment()]})
    (j,) = constructiveness.judge(ctx, [review])
    assert j.failed_call is None and len(record(ctx, constructiveness, [j])[1]) == 1


def test_recording_twice_writes_one_event(make_judge_ctx, judge_server, judge_log, review):
    judge_server.answer(SCHEMA, reply={"comments": [comment()]})
    ctx = make_judge_ctx(constructiveness)
    _, first = record(ctx, constructiveness, constructiveness.judge(ctx, [review]))
    rec, second = record(ctx, constructiveness, constructiveness.judge(ctx, [review]))
    assert len(first) == 1 and second == [] and rec.skipped == 1
    assert judge_log.count("judgment_recorded") == 1 and judge_server.requests == 1


def test_the_judge_sees_a_prefix_of_a_long_review(make_judge_ctx, judge_server, review):
    # options["max_chars"] (default settings.judge_max_chars) cuts the text; anchors are checked in the cut
    judge_server.answer(SCHEMA, reply={"comments": [comment(anchor="The writing is unclear")]})
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [review], max_chars=40)
    assert j.inputs["chars_judged"] == 40 and j.units[0]["anchor_found"] is False
    assert review.text[:40] in judge_server.prompt(judge_server.bodies[0])
    assert "The writing" not in judge_server.prompt(judge_server.bodies[0])


def test_template_loads_with_a_bounded_schema_matching_the_parser():
    t = load_template(SCHEMA)
    assert t.output_schema_name == SCHEMA and t.output_schema["title"] == SCHEMA
    jsonschema.Draft202012Validator.check_schema(t.output_schema)
    comments = t.output_schema["properties"]["comments"]
    assert "maxItems" not in comments  # every comment; a cap narrows the request's copy
    assert_bounded(constructiveness.narrowed_schema(t.output_schema, 6))
    assert "maxItems" not in t.output_schema["properties"]["comments"]  # narrowing copies
    for r in constructiveness.RATINGS:
        assert comments["items"]["properties"][r]["enum"] == [0, 1, 2]
    system, user = t.render(review_text="")
    assert len(system["content"]) + len(user["content"]) < 1_500  # ~350 tokens of instructions
