"""The score predictor through the real gateway and event log, answers scripted at the network edge: the
rating numbers masked before the call, the venue's rubric in the prompt, the unit, every null path
(no rubric, empty review, unparseable, out of scale), failed calls, repeats, sources, the study table's
checks, and the masking rules and rubric files on their own."""

import json
from datetime import UTC, datetime

import pytest

from peerlake.judging import score_prediction as sp
from peerlake.judging.review_numbers import MASK, strip_numbers
from peerlake.judging.rubrics import RubricError, builtin, load_rubric, resolve
from peerlake.warehouse import PaperIngested
from peerlake.warehouse.events import PaperStatusRecorded
from tests.doubles.fake_server import Reply
from tests.judging.support import record, units_of

SCHEMA = "score_predictor"
T0 = datetime(2026, 3, 1, tzinfo=UTC)
WEAK = "The paper is unclear and the experiments are thin.\nRating: 3 out of 10. Confidence: 4"


def paper(paper_id: str, venue: str | None, year: int | None = None) -> PaperIngested:
    return PaperIngested(occurred_at=T0, paper_id=paper_id, title=paper_id, source_uri=f"file:///{paper_id}.pdf",
                         pdf_sha256="a" * 64, package_sha256="b" * 64, n_pages=8, n_text_records=10, n_chars=1000,
                         venue=venue, year=year)


@pytest.fixture
def lake_papers(judge_log):
    judge_log.append_many([paper("p-iclr", "ICLR.cc/2025/Conference"), paper("p-icml", "ICML.cc/2025/Conference"),
                           paper("p-odd", "Workshop on Odd Things 2024")])
    return judge_log


def predict(make_judge_ctx, reviews, table=None, **cfg):
    ctx = make_judge_ctx(sp, **cfg)
    return ctx, sp.judge(ctx, reviews, sp.Spec.from_table(table or {}))


def test_a_human_review_is_predicted_on_its_venues_rubric_with_its_rating_masked(
        make_judge_ctx, judge_server, lake_papers, make_review):
    review = make_review(("summary", "A new optimizer."), ("weaknesses", WEAK), key="human:r1", paper_id="p-iclr")
    judge_server.answer(SCHEMA, "A new optimizer", reply={"score": 3})
    ctx, (j,) = predict(make_judge_ctx, [review])
    assert j.null_reason is None and j.failed_call is None
    rubric = resolve("iclr")
    assert j.units == [{"predicted_score": 3.0, "rubric": "iclr", "rubric_sha256": rubric.sha256, "scale_min": 1.0,
                        "scale_max": 10.0, "is_anchor": True, "n_numbers_removed": 2}]
    (body,) = judge_server.bodies_for(SCHEMA)
    prompt = judge_server.prompt(body)
    # "3 out of 10" and "Confidence: 4" are masked: neither number is left in the review's part
    review_part = prompt.split("<review>")[1].split("</review>")[0]
    assert f"Rating: {MASK}. Confidence: {MASK}" in review_part and not any(c.isdigit() for c in review_part)
    # the ICLR anchors, with their meanings, follow the review
    assert "6: marginally above the acceptance threshold" in prompt and "ICLR.cc/2025/Conference" in prompt
    assert body.get("max_completion_tokens", body.get("max_tokens")) == sp.MAX_TOKENS and body["seed"] == 3000
    assert j.inputs["venue"] == "ICLR.cc/2025/Conference" and j.inputs["year"] == 2025
    assert j.inputs["rubric"] == "iclr" and j.inputs["n_numbers_removed"] == 2
    _, events = record(ctx, sp, [j])
    assert units_of(events[0])[0]["predicted_score"] == 3.0 and events[0].step == "predict"
    assert record(ctx, sp, [j])[1] == []  # a replayed run records nothing new


def test_between_anchors_is_kept_and_flagged_outside_the_scale_is_dropped_and_counted(
        make_judge_ctx, judge_server, lake_papers, make_review):
    icml = make_review(("review", "Solid but incremental."), key="human:a", paper_id="p-icml")
    iclr = make_review(("review", "Excellent and novel."), key="human:b", paper_id="p-iclr")
    judge_server.answer(SCHEMA, "incremental", reply={"score": 6})  # ICML's scale is 1-5
    judge_server.answer(SCHEMA, "Excellent", reply={"score": 7.5})  # between ICLR's 6 and 8
    _, (a, b) = predict(make_judge_ctx, [icml, iclr])
    assert (a.null_reason, a.dropped, a.units, a.inputs["answered_score"]) == ("out_of_scale", {"out_of_scale": 1},
                                                                               [], 6.0)
    assert b.null_reason is None and b.units[0]["predicted_score"] == 7.5 and b.units[0]["is_anchor"] is False
    assert b.units[0]["rubric"] == "iclr"


@pytest.mark.parametrize("reply", [{"score": "six"}, {"score": True}, {"rating": 5}, "no json here", {"score": None}])
def test_an_answer_without_a_numeric_score_is_unparseable(make_judge_ctx, judge_server, lake_papers, make_review,
                                                         reply):
    judge_server.answer(SCHEMA, reply=reply)
    _, (j,) = predict(make_judge_ctx, [make_review(("review", "Fine."), paper_id="p-iclr")])
    assert j.null_reason == "unparseable:predict" and j.units == []


def test_no_rubric_and_empty_review_make_no_call(make_judge_ctx, judge_server, lake_papers, make_review):
    odd = make_review(("review", "Interesting."), key="human:odd", paper_id="p-odd")  # no built-in matches
    unknown = make_review(("review", "Interesting."), key="human:u", paper_id="p-never-ingested")
    empty = make_review(key="human:e", paper_id="p-iclr")
    _, js = predict(make_judge_ctx, [odd, unknown, empty])
    assert [j.null_reason for j in js] == ["no_rubric", "no_rubric", "empty_review"]
    assert judge_server.bodies_for(SCHEMA) == []
    # the study's default rubric (or its venue table) gives the odd venue a scale
    judge_server.answer(SCHEMA, reply={"score": 4})
    _, (j,) = predict(make_judge_ctx, [odd], {"rubrics": {"Workshop on Odd Things 2024": "icml"}})
    assert j.units[0]["rubric"] == "icml" and j.units[0]["scale_max"] == 5.0 and j.inputs["year"] == 2024
    _, (j,) = predict(make_judge_ctx, [odd], {"default_rubric": "neurips"})
    assert j.units[0]["rubric"] == "neurips"


def test_the_study_venue_table_wins_over_the_builtin_pattern(make_judge_ctx, judge_server, lake_papers, make_review):
    judge_server.answer(SCHEMA, reply={"score": 9})
    _, (j,) = predict(make_judge_ctx, [make_review(("review", "Good."), paper_id="p-iclr")],
                      {"rubrics": {"ICLR.cc/2025/Conference": "neurips"}})
    assert j.units[0]["rubric"] == "neurips" and j.units[0]["is_anchor"] is True


def test_a_status_only_paper_takes_its_venue_from_the_status(make_judge_ctx, judge_server, judge_log, make_review):
    judge_log.append(PaperStatusRecorded(occurred_at=T0, paper_id="p-s", venue="NeurIPS.cc/2024/Conference",
                                         status="rejected", decision="Reject", is_accepted=False, source="test"))
    assert sp.paper_venues(judge_log) == {"p-s": ("NeurIPS.cc/2024/Conference", 2024)}


def test_a_variant_without_a_venue_takes_its_base_papers(make_judge_ctx, judge_server, judge_log, make_review):
    # the demo's papers have their venue from their decision only; an experiment's variant has none
    judge_log.append(PaperStatusRecorded(occurred_at=T0, paper_id="p-s", venue="ICLR.cc/2025/Conference",
                                         status="rejected", decision="Reject", is_accepted=False, source="test"))
    judge_log.append(paper("p-s~hidden_text-0123456789", None))
    judge_server.answer("score_predictor", reply='{"score": 3}')
    review = make_review(("weaknesses", WEAK), key="human:v", paper_id="p-s~hidden_text-0123456789")
    _, [j] = predict(make_judge_ctx, [review])
    assert j.null_reason is None and j.units[0]["rubric"] == "iclr"


def test_repeats_sources_and_failed_calls(make_judge_ctx, judge_server, lake_papers, make_review):
    human = make_review(("review", "Good human review."), key="human:h", paper_id="p-iclr")
    system = make_review(("summary", "System text."), key="peerlake:s", paper_id="p-iclr", source="peerlake",
                         system="cfg", sample_index=0)
    judge_server.answer(SCHEMA, "Good human", reply={"score": 8})
    judge_server.answer(SCHEMA, "System text", reply=Reply(status=400))
    ctx, js = predict(make_judge_ctx, [human, system], repeats=2, temperature=0.7)
    assert [(j.subject_key, j.repeat) for j in js] == [("human:h", 0), ("human:h", 1), ("peerlake:s", 0),
                                                        ("peerlake:s", 1)]
    assert sorted(b["seed"] for b in judge_server.bodies_for(SCHEMA) if "Good human" in judge_server.prompt(b)) \
        == [3000, 3001]
    assert js[2].failed_call is not None and "LlmCallFailed" in js[2].failed_call
    rec, events = record(ctx, sp, js)
    assert len(events) == 2 and rec.failed == 2
    judge_server.bodies.clear()
    _, js = predict(make_judge_ctx, [human, system], {"sources": ["peerlake"]})
    assert [j.subject_key for j in js] == ["peerlake:s"]


@pytest.mark.parametrize(("table", "message"), [
    ({"rubrics": {"ICLR": "nope"}}, "score_prediction.rubrics: no built-in rubric 'nope'"),
    ({"rubrics": ["iclr"]}, "score_prediction.rubrics: a table venue = rubric"),
    ({"default_rubric": "/no/such/rubric.toml"}, "score_prediction.default_rubric: rubric /no/such/rubric.toml"),
    ({"default_rubric": 3}, "score_prediction.default_rubric: a built-in rubric name"),
    ({"strip": "digits"}, "score_prediction.strip: 'digits' is not one of ratings, all_numbers"),
    ({"max_chars": 50}, "score_prediction.max_chars: an integer of at least 200"),
    ({"max_chars": True}, "score_prediction.max_chars"),
    ({"sources": ["human", "robots"]}, "score_prediction.sources"),
    ({"sources": []}, "score_prediction.sources"),
])
def test_bad_table_values_name_the_key(table, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        sp.Spec.from_table(table)


def test_the_table_keys_and_defaults():
    spec = sp.Spec.from_table({"judge": {"model": "m"}, "unrelated": 1})  # keys outside KEYS are ignored
    assert (spec.rubrics, spec.default_rubric, spec.strip, spec.max_chars, spec.sources) == (
        (), None, "ratings", None, ("human", "peerlake", "external"))
    assert {"judge", "rubrics", "default_rubric", "strip", "max_chars", "sources"} == sp.KEYS
    assert (sp.EXPERIMENT, sp.JUDGE, sp.TEMPLATES, sp.DEFAULT_REPEATS) == ("score_prediction", "score_prediction",
                                                                          ("score_predictor",), 1)


# ---- the masking rules (judging/review_numbers.py), one case each --------------------------------

@pytest.mark.parametrize(("text", "masked", "n"), [
    ("Score: 6", f"Score: {MASK}", 1),
    ("I rate this paper 3 overall", f"I rate this paper {MASK} overall", 1),
    ("a rating of 8/10 here", f"a rating of {MASK} here", 1),  # the fraction first, then nothing is left
    ("I give it 7 out of 10.", f"I give it {MASK}.", 1),
    ("6: marginally above the acceptance threshold", f"{MASK}: marginally above the acceptance threshold", 1),
    ("Soundness: 3 good\nPresentation: 2 fair", f"Soundness: {MASK} good\nPresentation: {MASK} fair", 2),
    ("the error rate is 5.5% on 3 datasets", "the error rate is 5.5% on 3 datasets", 0),  # a % is a result
    ("rated 12 times", "rated 12 times", 0),  # above 10: on no venue's scale
    ("Table 2 shows 85.1 accuracy", "Table 2 shows 85.1 accuracy", 0),
])
def test_ratings_are_masked_and_results_are_not(text, masked, n):
    assert strip_numbers(text) == (masked, n)


def test_all_numbers_masks_every_number():
    # "85.5", "1,000" and "3" are three numbers
    assert strip_numbers("85.5% on 1,000 samples, 3 seeds", "all_numbers") == (
        f"{MASK}% on {MASK} samples, {MASK} seeds", 3)
    with pytest.raises(ValueError, match="strip mode"):
        strip_numbers("x", "some")


# ---- rubric files ----------------------------------------------------------------------------------

def test_builtin_rubrics_have_the_venues_scales():
    scales = {r.name: r.scores for r in builtin()}
    assert scales == {"demo": (1, 3, 5, 6, 8, 10), "iclr": (1, 3, 5, 6, 8, 10), "iclr_2026": (0, 2, 4, 6, 8, 10),
                      "icml": (1, 2, 3, 4, 5), "neurips": tuple(range(1, 11))}
    matched = {v: [r.name for r in builtin() if r.matches(v)] for v in (
        "ICLR.cc/2025/Conference", "ICLR.cc/2026/Conference", "NeurIPS.cc/2024/Conference", "ICML 2025",
        "Demo.cc/2026/Conference", "ICLR.cc/2017/conference")}
    assert matched == {"ICLR.cc/2025/Conference": ["iclr"], "ICLR.cc/2026/Conference": ["iclr_2026"],
                       "NeurIPS.cc/2024/Conference": ["neurips"], "ICML 2025": ["icml"],
                       "Demo.cc/2026/Conference": ["demo"], "ICLR.cc/2017/conference": []}


@pytest.mark.parametrize(("text", "message"), [
    ('name = "x"\n[[level]]\nscore = 1\nmeaning = "a"\n', "at least two"),
    ('[[level]]\nscore = 2\nmeaning = "a"\n[[level]]\nscore = 1\nmeaning = "b"\n', "ascending"),
    ('[[level]]\nscore = "1"\nmeaning = "a"\n[[level]]\nscore = 2\nmeaning = "b"\n', "numeric score"),
    ('venues = ["("]\n[[level]]\nscore = 1\nmeaning = "a"\n[[level]]\nscore = 2\nmeaning = "b"\n', "not a regex"),
    ("not toml = = =", "cannot read"),
])
def test_a_bad_rubric_file_is_refused(tmp_path, text, message):
    path = tmp_path / "r.toml"
    path.write_text(text)
    with pytest.raises(RubricError, match=message):
        load_rubric(path)


def test_a_user_rubric_file_by_path(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('title = "Mine"\nvenues = ["^MINE"]\n[[level]]\nscore = 0\nmeaning = "no"\n'
                    '[[level]]\nscore = 2.5\nmeaning = "yes"\n')
    spec = sp.Spec.from_table({"default_rubric": str(path)})
    r = spec.default_rubric
    assert (r.name, r.title, r.scale_min, r.scale_max, r.matches("mine 2026")) == ("mine", "Mine", 0.0, 2.5, True)
    assert json.dumps(r.levels) == '[[0.0, "no"], [2.5, "yes"]]'
