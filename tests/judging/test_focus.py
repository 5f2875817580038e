"""The focus judge through the real gateway and event log, answers scripted at the network edge: the item
record (labels normalized, items outside the taxonomy dropped and counted), the taxonomy in the prompt, the
schema's enums and in the judgment's inputs, each null path, failed calls, repeats, variants left out,
recording once, and the study table's checks."""

import hashlib
import json

import jsonschema
import pytest

from peerlake.judging import focus, taxonomy
from peerlake.prompts import load_template
from peerlake.warehouse.events import PaperVariantRecorded
from tests.doubles.fake_server import Reply
from tests.judging.support import assert_bounded, record, units_of

SCHEMA = "focus_label"
SUMMARY = "The paper proposes GateNet, a gated adapter for vision transformers."
STRENGTHS = "The method is simple and the writing is clear."
WEAKNESSES = "Only CIFAR-10 with one seed. No comparison with LoRA."


def item(text, target, aspect):
    return {"text": text, "target": target, "aspect": aspect}


@pytest.fixture
def review(make_review):
    return make_review(("summary", SUMMARY), ("strengths", STRENGTHS), ("weaknesses", WEAKNESSES),
                       key="peerlake:abc", paper_id="paper-1", source="peerlake", system="cfg123", sample_index=0)


def spec(**table):
    return focus.Spec.from_table(table)


def test_items_are_labelled_normalized_and_checked_against_the_taxonomy(make_judge_ctx, judge_server, review):
    judge_server.answer(SCHEMA, "GateNet", reply={
        "strengths": [item("Simple method.", "method", "significance"),
                      item("Clear  writing\n overall.", "Paper", "Communication Clarity"),  # normalized
                      item("Nice figures.", "figures", "communication_clarity")],  # unknown target → dropped
        "weaknesses": [item("One dataset, one seed.", "experiment", "validity"),
                       item("No LoRA baseline.", "prior-work", "coolness"),  # target ok, aspect unknown
                       item("  ", "method", "validity"),  # no text
                       item("Too many.", "method", "novelty")]})  # beyond max_items = 3
    ctx = make_judge_ctx(focus)
    (j,) = focus.judge(ctx, [review], spec(max_items=3))
    assert j.null_reason is None and j.failed_call is None
    assert (j.judge, j.step, j.subject_key, j.paper_id, j.repeat) == ("focus", "label", "peerlake:abc", "paper-1", 0)
    assert j.units == [
        {"polarity": "strength", "item_index": 0, "text": "Simple method.", "target": "method",
         "aspect": "significance"},
        {"polarity": "strength", "item_index": 1, "text": "Clear writing overall.", "target": "paper",
         "aspect": "communication_clarity"},
        {"polarity": "weakness", "item_index": 0, "text": "One dataset, one seed.", "target": "experiment",
         "aspect": "validity"},
    ]
    assert j.dropped == {"unknown_target": 1, "unknown_aspect": 1, "no_text": 1, "over_max_items": 1}
    default = taxonomy.load()
    assert j.inputs["taxonomy"] == "focus-default"
    assert j.inputs["taxonomy_sha256"] == hashlib.sha256(taxonomy.shipped_dir().joinpath("focus.toml")
                                                         .read_bytes()).hexdigest()
    assert j.inputs["targets"] == ["paper", "problem", "prior_work", "method", "theory", "experiment"]
    assert j.inputs["aspects"] == ["validity", "novelty", "communication_clarity", "significance",
                                   "reproducibility"]
    assert j.inputs["source"] == "peerlake" and j.inputs["chars_judged"] == len(review.text)
    # what went over the wire: the taxonomy's labels as the schema's enums, max_items as maxItems, the
    # definitions in the prompt, the purpose naming judge and step
    (body,) = judge_server.bodies_for(SCHEMA)
    sent = body["response_format"].get("json_schema", {}).get("schema") or body["response_format"]["schema"]
    for key in ("strengths", "weaknesses"):
        assert sent["properties"][key]["maxItems"] == 3
        props = sent["properties"][key]["items"]["properties"]
        assert props["target"]["enum"] == list(default.labels("target"))
        assert props["aspect"]["enum"] == list(default.labels("aspect"))
    assert_bounded(sent)
    prompt = judge_server.prompt(body)
    assert "- prior_work: related work, citations" in prompt and "at most 3 of each" in prompt and WEAKNESSES in prompt
    (call,) = list(ctx.log.iter_events("llm_call"))
    assert call.purpose == "judge_focus_label" and call.subject_id == "peerlake:abc"


def test_the_template_schema_is_bounded_and_accepts_an_answer():
    t = load_template("focus_label")
    assert t.output_schema["title"] == SCHEMA
    assert_bounded(t.output_schema)
    jsonschema.validate({"strengths": [item("a", "method", "novelty")], "weaknesses": []}, t.output_schema)
    tight = focus.response_schema(t.output_schema, spec())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"strengths": [item("a", "figures", "novelty")], "weaknesses": []}, tight)


def test_null_paths(make_judge_ctx, judge_server, make_review):
    empty = make_review(key="human:empty")
    garbled = make_review(("summary", "GARBLED review"), key="human:garbled")
    half = make_review(("summary", "HALF review"), key="human:half")
    nothing = make_review(("summary", "NOTHING review"), key="human:nothing")
    judge_server.answer(SCHEMA, "GARBLED", reply="this is not JSON")
    judge_server.answer(SCHEMA, "HALF", reply={"strengths": [item("x", "method", "novelty")]})  # no weaknesses
    judge_server.answer(SCHEMA, "NOTHING", reply={"strengths": [], "weaknesses": [item("x", "oops", "oops")]})
    out = focus.judge(make_judge_ctx(focus), [empty, garbled, half, nothing], spec())
    assert [(j.subject_key, j.null_reason) for j in out] == [
        ("human:empty", "empty_review"), ("human:garbled", "unparseable:label"),
        ("human:half", "unparseable:label"), ("human:nothing", "no_items")]
    assert [len(j.results) for j in out] == [0, 1, 1, 1]  # no call for an empty review
    assert out[3].dropped == {"unknown_target": 1}
    assert len(judge_server.bodies_for(SCHEMA)) == 3


def test_failed_call_is_not_recorded_and_retried_next_run(make_judge_ctx, judge_server, review):
    judge_server.answer(SCHEMA, reply=Reply(status=400))
    ctx = make_judge_ctx(focus)
    (j,) = focus.judge(ctx, [review], spec())
    assert j.failed_call is not None and j.null_reason is None
    rec, events = record(ctx, focus, [j])
    assert events == [] and rec.failed == 1
    judge_server.rules.clear()
    judge_server.answer(SCHEMA, reply={"strengths": [], "weaknesses": [item("x", "theory", "validity")]})
    (j,) = focus.judge(ctx, [review], spec())
    assert j.failed_call is None and len(record(ctx, focus, [j])[1]) == 1


def test_every_repeat_is_run_and_each_judgment_recorded_once(make_judge_ctx, judge_server, review):
    judge_server.answer(SCHEMA, reply={"strengths": [item("ok", "paper", "significance")], "weaknesses": []})
    ctx = make_judge_ctx(focus, repeats=2, temperature=0.7)
    out = focus.judge(ctx, [review], spec())
    assert [j.repeat for j in out] == [0, 1]
    seeds = sorted(b["seed"] for b in judge_server.bodies_for(SCHEMA))
    assert seeds == [3000, 3001]  # judging.base.SEED_BASE + repeat
    _, events = record(ctx, focus, out)
    assert [units_of(e) for e in events] == [[{"polarity": "strength", "item_index": 0, "text": "ok",
                                               "target": "paper", "aspect": "significance"}]] * 2
    assert json.loads(events[0].inputs_json)["taxonomy"] == "focus-default"
    # a replayed run: the same calls replay, the same judgments are found, nothing new is written
    rec, again = record(ctx, focus, focus.judge(ctx, [review], spec()))
    assert again == [] and rec.skipped == 2 and len(judge_server.bodies_for(SCHEMA)) == 2


def _variant(variant_id: str, built: bool = True) -> PaperVariantRecorded:
    return PaperVariantRecorded(variant_key="k" * 64, variant_id=variant_id, kind="hidden_text",
                                base_paper_id="paper-1", base_package_sha256="b" * 64, experiment_config="e" * 16,
                                built=built, reason=None if built else "render_failed", pdf_sha256=None,
                                package_sha256=None, details_json="{}")


def test_reviews_of_variants_are_left_out_unless_the_study_asks(make_judge_ctx, judge_server, judge_log, make_review):
    judge_log.append(_variant("paper-1~hidden_text-abc"))
    judge_log.append(_variant("paper-1~hidden_text-zzz", built=False))
    judge_log.seal()
    original = make_review(("summary", "A review."), key="peerlake:o", paper_id="paper-1")
    on_variant = make_review(("summary", "A review."), key="peerlake:v", paper_id="paper-1~hidden_text-abc")
    judge_server.answer(SCHEMA, reply={"strengths": [item("ok", "paper", "novelty")], "weaknesses": []})
    ctx = make_judge_ctx(focus)
    assert [j.subject_key for j in focus.judge(ctx, [original, on_variant], spec())] == ["peerlake:o"]
    assert [j.subject_key for j in focus.judge(ctx, [original, on_variant], spec(include_variants=True))] == [
        "peerlake:o", "peerlake:v"]


def test_a_study_taxonomy_file_replaces_the_default(make_judge_ctx, judge_server, review, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[targets]\nmodel = "the model"\ndata = "the data"\n'
                    '[aspects]\nrigour = "is it right"\nstyle = "is it well written"\n')
    s = spec(taxonomy=str(path))
    assert s.taxonomy.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    judge_server.answer(SCHEMA, reply={"strengths": [item("a", "data", "style"), item("b", "method", "validity")],
                                       "weaknesses": []})
    (j,) = focus.judge(make_judge_ctx(focus), [review], s)
    assert [(u["target"], u["aspect"]) for u in j.units] == [("data", "style")]
    assert j.dropped == {"unknown_target": 1}  # "method" is not a label of this taxonomy
    assert j.inputs["taxonomy"] == "mine" and j.inputs["targets"] == ["model", "data"]
    assert "- rigour: is it right" in judge_server.prompt(judge_server.bodies_for(SCHEMA)[0])


@pytest.mark.parametrize(("table", "message"), [
    ({"max_items": 0}, "focus.max_items"),
    ({"max_items": True}, "focus.max_items"),
    ({"max_items": 21}, "focus.max_items"),
    ({"max_chars": 50}, "focus.max_chars"),
    ({"include_variants": "yes"}, "focus.include_variants"),
    ({"taxonomy": ""}, "focus.taxonomy"),
    ({"taxonomy": "no/such/file.toml"}, "focus.taxonomy: taxonomy file no/such/file.toml cannot be read"),
    ({"taxonomy": "nosuchname"}, "cannot be read"),
])
def test_bad_table_values_are_refused_with_the_key(table, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        focus.Spec.from_table(table)


@pytest.mark.parametrize(("text", "message"), [
    ("[targets]\na = 'x'\nb = 'y'\n", r"\[aspects\] must be a table of at least 2 labels"),
    ("[targets]\nBad = 'x'\nb = 'y'\n[aspects]\nc = 'x'\nd = 'y'\n", "label 'Bad' in \\[targets\\]"),
    ("[targets]\na = ''\nb = 'y'\n[aspects]\nc = 'x'\nd = 'y'\n", "label 'a' in \\[targets\\] needs a one-line"),
    ("[targets\n", "not valid TOML"),
])
def test_bad_taxonomy_files_are_refused(tmp_path, text, message):
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        focus.Spec.from_table({"taxonomy": str(path)})


def test_the_module_contract():
    assert (focus.EXPERIMENT, focus.JUDGE, focus.TEMPLATES, focus.DEFAULT_REPEATS) == (
        "focus", "focus", ("focus_label",), 1)
    assert set(focus.KEYS) == {"judge", "taxonomy", "max_items", "max_chars", "include_variants"}
    s = focus.Spec.from_table({"judge": {"model": "x"}, "unrelated": 1})  # keys not in KEYS are not its business
    assert (s.max_items, s.max_chars, s.include_variants, s.taxonomy.name) == (6, None, False, "focus-default")
