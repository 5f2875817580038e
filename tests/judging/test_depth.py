"""The depth judge through the real gateway and event log, answers scripted at the network edge:
the unit record it builds, each null path, failed calls, and recording once."""

import json

import jsonschema
import pytest

from peerlake.judging import depth, depth_taxonomy
from peerlake.prompts import load_template
from tests.doubles.fake_server import Reply
from tests.judging.support import STUDY, assert_bounded, record, units_of

SUMMARY = "The paper proposes GateNet, a gated adapter for vision transformers."
WEAKNESSES = ("The evaluation is weak. Table 3 reports accuracy on CIFAR-10 only, with a single seed. "
              "The baselines are\nolder methods. The writing is unclear in places.")
# review.text = "Summary:\n" + SUMMARY + "\n\n" + "Weaknesses:\n" + WEAKNESSES
W0 = len("Summary:\n") + len(SUMMARY) + len("\n\n") + len("Weaknesses:\n")  # where WEAKNESSES starts

UNITS = ["The paper proposes GateNet, a gated adapter for vision transformers.",
         "The evaluation is weak.",
         "Table 3 reports accuracy on CIFAR-10 only, with a single seed.",
         "The baselines are older methods.",  # the review breaks this line: verbatim up to whitespace
         "The experiments are thorough and convincing.",  # not in the review: dropped
         "The writing is unclear in places."]
LABELS = [{"unit": 1, "role": "claim", "aspect": "contribution"},
          {"unit": 2, "role": "claim", "aspect": "soundness"},
          {"unit": 2, "role": "premise", "aspect": "clarity"},  # a repeated number: the first label wins
          {"unit": 3, "role": "premise", "aspect": "soundness"},
          {"unit": 4, "role": "Premise", "aspect": "Soundness"},  # PRISM's capitalized labels are accepted
          {"unit": 9, "role": "claim", "aspect": "other"}]  # no unit 9: ignored; unit 5 (writing) unlabelled
GROUNDING = [{"premise": 1, "score": 2}]  # premise 2 (the baselines) skipped by the grounder


@pytest.fixture
def review(make_review):
    return make_review(("summary", SUMMARY), ("weaknesses", WEAKNESSES), key="human:r1", paper_id="paper-1")


def script_all(server, units=UNITS, labels=LABELS, grounding=GROUNDING, needle="GateNet"):
    server.answer("judge_depth_units", needle, reply={"units": units})
    server.answer("judge_depth_labels", needle, reply={"labels": labels})
    server.answer("judge_depth_grounding", "Table 3", reply={"grounding": grounding})


def test_unit_record_for_a_hand_made_review(make_judge_ctx, judge_server, judge_log, review):
    script_all(judge_server)
    ctx = make_judge_ctx(depth)
    (j,) = depth.judge(ctx, [review])
    assert j.null_reason is None and j.failed_call is None
    assert j.units == [
        {"unit_index": 0, "text": SUMMARY, "start": len("Summary:\n"), "field": "summary", "role": "claim",
         "aspect": "contribution", "grounding": None},
        {"unit_index": 1, "text": "The evaluation is weak.", "start": W0, "field": "weaknesses", "role": "claim",
         "aspect": "soundness", "grounding": None},
        {"unit_index": 2, "text": "Table 3 reports accuracy on CIFAR-10 only, with a single seed.",
         "start": W0 + WEAKNESSES.index("Table 3"), "field": "weaknesses", "role": "premise", "aspect": "soundness",
         "grounding": 2},
        # the review's own characters (its line break), so start + len(text) is the unit's true end
        {"unit_index": 3, "text": "The baselines are\nolder methods.", "start": W0 + WEAKNESSES.index("The baselines"),
         "field": "weaknesses", "role": "premise", "aspect": "soundness", "grounding": None},
    ]
    for u in j.units:
        assert review.text[u["start"]:u["start"] + len(u["text"])] == u["text"]
    # "thorough and convincing" is not the review's; "The writing ..." (unit 5) got no label
    assert j.dropped == {"not_verbatim": 1, "unlabelled": 1}
    assert j.inputs["fields"] == ["summary", "weaknesses"] and j.inputs["chars_judged"] == len(review.text)
    # the default taxonomy, and no cap on a hosted judge: the 6 strings answered are all read
    assert (j.inputs["depth_taxonomy"], j.inputs["aspects"]) == ("prism-reference",
                                                                ["soundness", "clarity", "contribution", "other"])
    assert (j.inputs["max_units"], j.inputs["units_answered"]) == (None, 6)
    assert len(j.results) == 3 and judge_server.unmatched == []  # units, labels, grounding

    # the labeller saw the 5 verbatim units numbered from 1, each on one line; the grounder the 2 premises
    (labels_body,) = judge_server.bodies_for("judge_depth_labels")
    prompt = judge_server.prompt(labels_body)
    assert "4. The baselines are older methods.\n5. The writing is unclear in places." in prompt
    assert "thorough" not in prompt
    (grounding_body,) = judge_server.bodies_for("judge_depth_grounding")
    premises = judge_server.prompt(grounding_body).split("Premises:")[1]
    assert premises.strip() == "1. Table 3 reports accuracy on CIFAR-10 only, with a single seed.\n" \
                               "2. The baselines are older methods."  # claims are not grounded

    _, (ev,) = record(ctx, depth, [j])
    assert ev.status == "ok" and ev.judge == "depth" and ev.step == "units" and ev.subject_key == "human:r1"
    assert ev.study == STUDY and ev.paper_id == "paper-1" and units_of(ev) == j.units
    calls = list(judge_log.iter_events("llm_call"))
    assert json.loads(ev.llm_call_ids_json) == sorted(e.event_id for e in calls) and len(calls) == 3
    assert json.loads(ev.request_keys_json) == sorted(e.request_key for e in calls)


def test_requests_carry_purpose_study_subject_and_repeat(make_judge_ctx, judge_server, judge_log, review):
    script_all(judge_server)
    depth.judge(make_judge_ctx(depth, repeat=1), [review])
    calls = list(judge_log.iter_events("llm_call"))
    assert sorted(e.purpose for e in calls) == ["judge_depth_grounding", "judge_depth_labels", "judge_depth_units"]
    assert {(e.study, e.subject_id, e.sample_index, e.status) for e in calls} == {(STUDY, "human:r1", 1, "ok")}
    assert {e.prompt_template for e in calls} == set(depth.TEMPLATES)
    # max_tokens per step (the openai provider sends it as max_completion_tokens): without a cap each
    # budget needed for this short review (5 units, 2 premises) is below the judge's 700, its floor
    assert {judge_server.schema_title(b): b["max_completion_tokens"] for b in judge_server.bodies} == {
        "judge_depth_units": 700, "judge_depth_labels": 700, "judge_depth_grounding": 700}


def test_empty_review_is_null_without_a_call(make_judge_ctx, judge_server, make_review, review):
    script_all(judge_server)
    empty = make_review(key="human:empty")
    ctx = make_judge_ctx(depth)
    j_empty, j_full = depth.judge(ctx, [empty, review])
    assert j_empty.null_reason == "empty_review" and j_empty.results == [] and j_empty.failed_call is None
    assert j_full.null_reason is None
    assert judge_server.requests == 3  # the other review's three steps only
    _, events = record(ctx, depth, [j_empty])
    assert events[0].status == "null" and events[0].null_reason == "empty_review" and units_of(events[0]) == []


@pytest.mark.parametrize("step", ["units", "labels", "grounding"])
@pytest.mark.parametrize("bad", ["I am sorry, I cannot split this review.", {"wrong": []}, {"units": "x",
                                                                                               "labels": 1,
                                                                                               "grounding": {}}])
def test_unparseable_answer_at_each_step(make_judge_ctx, judge_server, review, step, bad):
    judge_server.answer(f"judge_depth_{step}", reply=bad)  # the first rule matching wins
    script_all(judge_server)
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.null_reason == f"unparseable:{step}" and j.failed_call is None
    later = depth.TEMPLATES[depth.TEMPLATES.index(f"judge_depth_{step}") + 1:]
    assert all(judge_server.bodies_for(t) == [] for t in later)  # no step after the bad one


def test_no_verbatim_unit_is_no_units_without_a_labels_call(make_judge_ctx, judge_server, review):
    script_all(judge_server, units=["A sentence the review never says.", "", 7])
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.null_reason == "no_units" and j.dropped == {"not_verbatim": 3}
    assert judge_server.bodies_for("judge_depth_labels") == []


def test_empty_units_list_is_no_units(make_judge_ctx, judge_server, review):
    script_all(judge_server, units=[])
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.null_reason == "no_units" and j.dropped == {}


def test_every_unit_unlabelled_is_no_units(make_judge_ctx, judge_server, review):
    script_all(judge_server, labels=[{"unit": 1, "role": "opinion", "aspect": "soundness"}])  # role not an enum
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.null_reason == "no_units" and j.dropped == {"not_verbatim": 1, "unlabelled": 5}
    assert judge_server.bodies_for("judge_depth_grounding") == []


def test_claims_only_skip_the_grounding_call(make_judge_ctx, judge_server, review):
    claims = [{"unit": k, "role": "claim", "aspect": "other"} for k in range(1, 6)]
    script_all(judge_server, labels=claims)
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.null_reason is None and len(j.units) == 5
    assert {u["grounding"] for u in j.units} == {None} and len(j.results) == 2
    assert judge_server.bodies_for("judge_depth_grounding") == []


def test_duplicate_units_and_bad_grounding_scores(make_judge_ctx, judge_server, review):
    # the same unit twice is one unit; grounding 3, "2" and true are not 0/1/2 and leave it null
    script_all(judge_server, units=["The evaluation is weak.", "The evaluation is weak.",
                                    "Table 3 reports accuracy on CIFAR-10 only, with a single seed.",
                                    "The baselines are older methods."],
               labels=[{"unit": 1, "role": "claim", "aspect": "soundness"},
                       {"unit": 2, "role": "premise", "aspect": "soundness"},
                       {"unit": 3, "role": "premise", "aspect": "soundness"}],
               grounding=[{"premise": 1, "score": 3}, {"premise": 2, "score": "2"}, {"premise": 1, "score": True},
                          {"premise": 2, "score": 1.0}],
               needle="CIFAR-10")
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert j.dropped == {"duplicate": 1}
    assert [(u["unit_index"], u["role"], u["grounding"]) for u in j.units] == [
        (0, "claim", None), (1, "premise", None), (2, "premise", 1)]


def test_headings_are_cut_off_and_a_unit_cut_by_the_grammar_is_rejoined(make_judge_ctx, judge_server,
                                                                       make_review):
    long = ("The evaluation is weak because every number in Table 3 comes from one seed on CIFAR-10, the "
            "baselines are tuned far less than the proposed adapter, and the 0.4 point gain is smaller than "
            "the run-to-run variance that the appendix itself reports for the same backbone model.")
    review = make_review(("summary", "GateNet adapts vision transformers."), ("weaknesses", long))
    first = ("Weaknesses:\n" + long)[:200]  # the schema's maxLength closed the string here, mid-word
    assert len(first) == 200 and not first[-1].isspace() and long[188].isalpha()
    rest = long[200 - len("Weaknesses:\n"):]
    script_all(judge_server, units=["Summary:", first, rest],  # a bare heading, then one unit in two strings
               labels=[{"unit": 1, "role": "premise", "aspect": "soundness"}],
               grounding=[{"premise": 1, "score": 2}], needle="Table 3")
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    weaknesses_at = len("Summary:\n") + len("GateNet adapts vision transformers.") + len("\n\nWeaknesses:\n")
    assert j.units == [{"unit_index": 0, "text": long, "start": weaknesses_at, "field": "weaknesses",
                        "role": "premise", "aspect": "soundness", "grounding": 2}]
    assert j.dropped == {"heading": 1, "cut_rejoined": 1}


def test_failed_call_is_not_recorded(make_judge_ctx, judge_server, judge_log, review):
    judge_server.answer("judge_depth_units", reply=Reply(status=400))  # not retryable: LlmCallFailed at once
    ctx = make_judge_ctx(depth)
    (j,) = depth.judge(ctx, [review])
    assert j.failed_call is not None and "LlmCallFailed" in j.failed_call and j.null_reason is None
    rec, events = record(ctx, depth, [j])
    assert events == [] and rec.failed == 1 and rec.written == 0
    assert judge_log.count("judgment_recorded") == 0
    assert [e.status for e in judge_log.iter_events("llm_call")] == ["error"]


def test_failed_later_step_is_not_recorded_and_the_rerun_replays_the_first(make_judge_ctx, judge_server, judge_log,
                                                                            review):
    judge_server.answer("judge_depth_labels", reply=Reply(status=400))
    script_all(judge_server)
    ctx = make_judge_ctx(depth)
    (j,) = depth.judge(ctx, [review])
    assert j.failed_call is not None and record(ctx, depth, [j])[1] == []
    judge_server.rules.pop(0)  # the provider recovers
    (j,) = depth.judge(ctx, [review])
    assert j.failed_call is None and j.null_reason is None
    assert len(judge_server.bodies_for("judge_depth_units")) == 1  # step 1 replayed from the lake


def test_recording_twice_writes_one_event(make_judge_ctx, judge_server, judge_log, review):
    script_all(judge_server)
    ctx = make_judge_ctx(depth)
    _, first = record(ctx, depth, depth.judge(ctx, [review]))
    rec, second = record(ctx, depth, depth.judge(ctx, [review]))  # every call replayed
    assert len(first) == 1 and second == [] and rec.skipped == 1
    assert judge_log.count("judgment_recorded") == 1 and judge_server.requests == 3


@pytest.mark.parametrize("name", depth.TEMPLATES)
def test_templates_load_with_bounded_schemas_under_a_cap_and_short_instructions(name):
    t = load_template(name)
    assert t.output_schema_name == name and t.output_schema["title"] == name
    jsonschema.Draft202012Validator.check_schema(t.output_schema)
    step = name.removeprefix("judge_depth_")
    tax = depth_taxonomy.load()
    # what a grammar-decoding model gets under the embedded model's cap (12; 5 items asked)
    assert_bounded(depth.response_schema(t.output_schema, step, tax, 12, None if step == "units" else 5))
    for taxonomy in ("prism-reference", "prism-paper"):
        tax = depth_taxonomy.load(taxonomy)
        system, user = t.render(review_text="", units=[], premises=[], max_units=12, aspects=tax.aspects,
                                grounding=tax.grounding)
        # the local model reads ~73 prompt tokens/s: the instructions stay under ~300 tokens
        assert len(system["content"]) + len(user["content"]) < 1_200


def test_schemas_are_bounded_only_under_a_cap():
    tax = depth_taxonomy.load()
    units = load_template("judge_depth_units").output_schema
    assert "maxItems" not in units["properties"]["units"]  # the file is the shape: PRISM asks for every unit
    assert depth.response_schema(units, "units", tax, None, None) == units
    assert depth.response_schema(units, "units", tax, 12, None)["properties"]["units"]["maxItems"] == 12
    for name, key, number in [("judge_depth_labels", "labels", "unit"), ("judge_depth_grounding", "grounding",
                                                                           "premise")]:
        base = load_template(name).output_schema
        free = depth.response_schema(base, key, tax, None, 40)["properties"][key]
        assert "maxItems" not in free and "enum" not in free["items"]["properties"][number]
        capped = depth.response_schema(base, key, tax, 12, 5)["properties"][key]
        assert capped["maxItems"] == 5 and capped["items"]["properties"][number]["enum"] == [1, 2, 3, 4, 5]
        assert "maxItems" not in base["properties"][key]  # the template's own schema is untouched
    labels = depth.response_schema(load_template("judge_depth_labels").output_schema, "labels", tax, None, 3)
    props = labels["properties"]["labels"]["items"]["properties"]
    assert tuple(props["role"]["enum"]) == depth.ROLES
    assert props["aspect"]["enum"] == ["soundness", "clarity", "contribution", "other"]
