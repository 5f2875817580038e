"""The contradiction detection judge through the real gateway and event log, answers scripted at the
network edge: which subjects it judges (variant reviews, the base paper's audit reviews), repeats, the
unit record, every null path, a failed call, recording once, and the study-table keys."""

import json

import jsonschema
import pytest

from peerlake.judging import detection
from peerlake.prompts import load_template
from peerlake.warehouse.events import PaperVariantRecorded
from tests.doubles.fake_server import Reply
from tests.judging.support import STUDY, assert_bounded, record, units_of

SCHEMA = "detection_judge"
ORIGINAL = "Our method improves accuracy by 4.1 points over the strongest baseline on all five datasets."
MODIFIED = "Our method lowers accuracy by 4.1 points against the strongest baseline on all five datasets."
V1 = "base-1~contradiction-aaaaaaaaaa"
V2 = "base-1~contradiction-bbbbbbbbbb"


def variant(vid, *, built=True, kind="contradiction", details=None, base="base-1"):
    d = {"item_id": f"{base}:d0", "node_id": "n1", "node_type": "claim", "node_level": "main", "distance": 0,
         "original_paragraph": ORIGINAL, "modified_paragraph": MODIFIED, "record_id": "r7", "page": 2, "seed": 1}
    return PaperVariantRecorded(variant_key=vid[-10:] * 6, variant_id=vid if built else vid + "-x", kind=kind,
                                base_paper_id=base, base_package_sha256="b" * 64, experiment_config="e" * 16,
                                built=built, reason=None if built else "render_lost_text",
                                pdf_sha256="p" * 64 if built else None, package_sha256="k" * 64 if built else None,
                                details_json=json.dumps(d if details is None else details))


@pytest.fixture
def lake_with_variants(judge_log):
    judge_log.append_many([
        variant(V1),
        # V2 has no paragraphs in its details (a broken event): judged null, no call
        variant(V2, details={"item_id": "base-1:d1", "distance": 1}),
        variant("base-1~contradiction-cccccccccc", built=False),  # not built: no paper, never judged
        variant("base-1~hidden_text-dddddddddd", kind="hidden_text"),  # another experiment's variant
        variant("other~contradiction-eeeeeeeeee", base="other"),  # not reviewed in this study
    ])
    return judge_log


@pytest.fixture
def reviews(make_review):
    def sys_review(key, paper, text, sample):
        return make_review(("summary", "A method paper."), ("weaknesses", text), key=key, paper_id=paper,
                           source="peerlake", system="cfg-mlr", sample_index=sample)
    return [
        sys_review("peerlake:found", V1, "The results paragraph says accuracy drops by 4.1 points, which "
                   "contradicts the abstract's claimed gain.", 0),
        sys_review("peerlake:missed", V1, "The evaluation uses too few seeds.", 1),
        make_review(key="peerlake:empty", paper_id=V1, source="peerlake", system="cfg-mlr", sample_index=2),
        sys_review("peerlake:v2", V2, "Fine paper.", 0),
        sys_review("peerlake:base", "base-1", "The evaluation uses too few seeds (base).", 0),
        make_review(("review", "Human review of the base."), key="human:h1", paper_id="base-1"),
    ]


def test_subjects_roles_repeats_and_units(make_judge_ctx, judge_server, lake_with_variants, reviews):
    judge_server.answer(SCHEMA, "contradicts the abstract", reply={"rationale": "It names the drop.",
                                                                   "identified": True})
    judge_server.answer(SCHEMA, "too few seeds", reply={"rationale": "Only seeds.", "identified": False})
    ctx = make_judge_ctx(detection, repeats=2, temperature=0.7)
    out = detection.judge(ctx, reviews, detection.Spec())
    got = {(j.subject_key, j.repeat): j for j in out}
    # V1: 3 reviews of the variant + 1 audit review of the base (the human review is not audited);
    # V2: 1 review + the same audit review; × 2 repeats = (4 + 2) × 2 = 12 judgments
    assert len(out) == 12 and set(got) == {(f"{v}|{k}", r) for v, ks in (
        (V1, ("peerlake:found", "peerlake:missed", "peerlake:empty", "peerlake:base")),
        (V2, ("peerlake:v2", "peerlake:base"))) for k in ks for r in (0, 1)}
    found = got[(f"{V1}|peerlake:found", 1)]
    assert found.units == [{"variant_id": V1, "review_key": "peerlake:found", "role": "detection",
                            "identified": True, "rationale": "It names the drop."}]
    assert (found.paper_id, found.inputs["role"], found.inputs["item_id"]) == (V1, "detection", "base-1:d0")
    audit = got[(f"{V1}|peerlake:base", 0)]
    assert audit.paper_id == "base-1" and audit.units[0]["role"] == "audit" and audit.units[0]["identified"] is False
    assert got[(f"{V1}|peerlake:empty", 0)].null_reason == "empty_review"
    assert got[(f"{V2}|peerlake:v2", 0)].null_reason == "no_item_text"
    # calls: V1 × (found, missed, base) × 2 repeats = 6; seeds 3000 + r; both paragraphs in every prompt
    bodies = judge_server.bodies_for(SCHEMA)
    assert len(bodies) == 6 and judge_server.unmatched == []
    assert sorted(b["seed"] for b in bodies) == [3000, 3000, 3000, 3001, 3001, 3001]
    assert all(ORIGINAL in judge_server.prompt(b) and MODIFIED in judge_server.prompt(b) for b in bodies)
    assert {b["max_completion_tokens"] for b in bodies} == {detection.MAX_TOKENS}

    rec, events = record(ctx, detection, out)
    assert rec.written == 12
    ev = next(e for e in events if e.subject_key == f"{V1}|peerlake:found" and e.repeat == 0)
    assert (ev.judge, ev.step, ev.status, ev.study, ev.paper_id) == ("detection", "identify", "ok", STUDY, V1)
    assert units_of(ev)[0]["identified"] is True
    calls = {c.event_id: c for c in ctx.log.iter_events("llm_call")}
    (cid,) = json.loads(ev.llm_call_ids_json)
    assert (calls[cid].purpose, calls[cid].subject_id) == ("judge_detection_identify", ev.subject_key)
    # a second run replays every call and records nothing new
    rec2, again = record(ctx, detection, detection.judge(ctx, reviews, detection.Spec()))
    assert again == [] and rec2.skipped == 12 and len(judge_server.bodies_for(SCHEMA)) == 6


def test_unparseable_answers_and_a_failed_call(make_judge_ctx, judge_server, lake_with_variants, reviews):
    judge_server.answer(SCHEMA, "contradicts the abstract", reply={"rationale": "x", "identified": "yes"})
    judge_server.answer(SCHEMA, "too few seeds (base)", reply="not json at all")
    judge_server.answer(SCHEMA, "too few seeds.", reply=Reply(status=400))
    ctx = make_judge_ctx(detection, repeats=1)
    got = {j.subject_key: j for j in detection.judge(ctx, reviews, detection.Spec(audit=True))}
    assert got[f"{V1}|peerlake:found"].null_reason == "unparseable:identify"  # a string is not a bool
    assert got[f"{V1}|peerlake:base"].null_reason == "unparseable:identify"
    failed = got[f"{V1}|peerlake:missed"]
    assert failed.failed_call is not None and failed.null_reason is None
    rec, events = record(ctx, detection, list(got.values()))
    assert rec.failed == 1 and {e.status for e in events} == {"null"}


def test_audit_off_and_budgets(make_judge_ctx, judge_server, lake_with_variants, reviews):
    judge_server.answer(SCHEMA, reply={"rationale": "r", "identified": False})
    ctx = make_judge_ctx(detection, repeats=1)
    spec = detection.Spec(audit=False, detection_review_chars=30, detection_paragraph_chars=20)
    out = detection.judge(ctx, reviews, spec)
    assert {j.inputs["role"] for j in out} == {"detection"} and len(out) == 4  # V1 × 3 + V2 × 1
    for body in judge_server.bodies_for(SCHEMA):
        prompt = judge_server.prompt(body)
        assert ORIGINAL[:20] + "\n</original>" in prompt and ORIGINAL[:21] not in prompt
    assert {j.inputs["chars_judged"] for j in out if "chars_judged" in j.inputs} == {30}


def test_the_spec_reads_its_keys_and_refuses_bad_values():
    assert detection.Spec.from_table({}) == detection.Spec(audit=True, detection_review_chars=None,
                                                           detection_paragraph_chars=None)
    spec = detection.Spec.from_table({"audit": False, "detection_review_chars": 4000,
                                      "detection_paragraph_chars": 800, "seed": 3})  # "seed" is the builder's key
    assert (spec.audit, spec.detection_review_chars, spec.detection_paragraph_chars) == (False, 4000, 800)
    assert spec.paragraph_limit("local") == 800
    assert detection.Spec().paragraph_limit("local") == 1500 and detection.Spec().paragraph_limit("openai") == 20000
    for bad, key in (({"audit": "yes"}, "audit"), ({"detection_review_chars": 0}, "detection_review_chars"),
                     ({"detection_paragraph_chars": True}, "detection_paragraph_chars"),
                     ({"detection_review_chars": 1.5}, "detection_review_chars")):
        with pytest.raises(ValueError, match=rf"^contradictions\.{key}: "):
            detection.Spec.from_table(bad)
    assert {"judge", "audit"} <= detection.KEYS and detection.DEFAULT_REPEATS == 10


def test_the_template_and_schema_suit_a_small_model():
    t = load_template(detection.TEMPLATES[0])
    assert_bounded(t.output_schema)
    jsonschema.validate({"rationale": "r", "identified": True}, t.output_schema)
    user = t.render(review_text="R", original_paragraph="O", modified_paragraph="M")[1]["content"]
    assert user.index("R") < user.index("<original>") < user.index("<edited>")  # the review is the cached prefix
