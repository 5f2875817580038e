"""What each judge reads of one review (judging/reviews.py JUDGE_SECTIONS), through the judges themselves:
the prompt holds only the judge's sections, its verbatim spans are looked up in that text, and
inputs_json records the fields it read."""

import pytest

from peerlake.judging import (
    constructiveness,
    depth,
    detection,
    flaws,
    focus,
    injection,
    novelty,
    score_prediction,
    withdrawal_match,
)
from peerlake.judging.reviews import JUDGE_SECTIONS

SUMMARY = "The paper proposes GateNet, a gated adapter for vision transformers."
WEAKNESSES = "Table 3 reports accuracy on CIFAR-10 only, with a single seed."
QUESTION = "Why does GateNet use one seed in Table 3?"


@pytest.fixture
def human(make_review):
    return make_review(("summary", SUMMARY), ("weaknesses", WEAKNESSES), ("questions", QUESTION))


def test_every_judge_has_a_named_field_set():
    modules = (depth, flaws, constructiveness, novelty, score_prediction, detection, injection, withdrawal_match,
               focus)
    assert {getattr(m, "JUDGE", m.__name__.rsplit(".", 1)[-1]) for m in modules} <= set(JUDGE_SECTIONS)


@pytest.mark.parametrize("source, system, key", [("human", "human", "human:r1"),
                                                 ("peerlake", "mlr", "peerlake:s1")])
def test_depth_does_not_read_the_questions_of_a_human_or_a_system(make_judge_ctx, judge_server, make_review,
                                                                  source, system, key):
    review = make_review(("summary", SUMMARY), ("weaknesses", WEAKNESSES), ("questions", QUESTION),
                         key=key, source=source, system=system, sample_index=0 if source != "human" else None)
    # a unit copied from the Questions is not in the text depth read: dropped as not verbatim
    judge_server.answer("judge_depth_units", reply={"units": [WEAKNESSES, QUESTION]})
    judge_server.answer("judge_depth_labels", reply={"labels": [{"unit": 1, "role": "claim", "aspect": "soundness"}]})
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    (units_body,) = judge_server.bodies_for("judge_depth_units")
    assert QUESTION not in judge_server.prompt(units_body) and WEAKNESSES in judge_server.prompt(units_body)
    assert j.dropped.get("not_verbatim") == 1 and [u["text"] for u in j.units] == [WEAKNESSES]
    assert (j.inputs["fields"], j.inputs["fields_not_read"], j.inputs["view"]) == (
        ["summary", "weaknesses"], ["questions"], "depth")


def test_constructiveness_reads_the_questions_depth_leaves_out(make_judge_ctx, judge_server, human):
    judge_server.answer("judge_constructiveness_comments", reply={"comments": []})
    (j,) = constructiveness.judge(make_judge_ctx(constructiveness), [human])
    assert QUESTION in judge_server.prompt(judge_server.bodies[0])
    assert j.inputs["fields"] == ["summary", "weaknesses", "questions"] and j.inputs["fields_not_read"] == []


def test_each_judge_records_its_own_fields(make_judge_ctx, judge_server, human):
    # the same review: the judgments say which fields each judge read (dbt's fields_used)
    judge_server.answer("judge_constructiveness_comments", reply={"comments": []})
    judge_server.answer("judge_depth_units", reply={"units": []})
    (d,) = depth.judge(make_judge_ctx(depth), [human])
    (c,) = constructiveness.judge(make_judge_ctx(constructiveness), [human])
    assert d.inputs["fields"] == ["summary", "weaknesses"] and c.inputs["fields"] == ["summary", "weaknesses",
                                                                                      "questions"]
    assert d.inputs["chars"] < c.inputs["chars"] and d.inputs["text_sha256"] != c.inputs["text_sha256"]


def test_flaws_read_a_humans_questions_and_not_its_strengths(judge_log, judge_server, make_judge_ctx, make_review):
    from tests.judging.test_flaws import _ingest_paper

    _ingest_paper(judge_log)
    h = make_review(("summary", "A method for X."), ("strengths", "Elegant and well written."),
                    ("questions", "Why is only one dataset used?"), key="human:h1", paper_id="P1")
    s = make_review(("weaknesses", "Evaluation on a single dataset only."), ("questions", "Is Lemma 2 tight?"),
                    key="peerlake:k1", paper_id="P1", source="peerlake", system="cfgA", sample_index=0)
    judge_server.answer("judge_flaws_extract", reply={"flaws": [
        {"topic": "experiments", "summary": "Single dataset",
         "raised_by": [{"reviewer": "R1", "quote": "Why is only one dataset used?"},
                       {"reviewer": "R2", "quote": "Evaluation on a single dataset only."}]}]})
    judge_server.answer("judge_flaws_validate", reply={"evaluations": [
        {"flaw_id": "F1", "is_valid": True, "severity": "critical"}]})
    judge_server.answer("judge_flaws_order", reply={"mentions": []})
    out = flaws.judge(make_judge_ctx(flaws), [h, s])
    prompt = judge_server.prompt(judge_server.bodies_for("judge_flaws_extract")[0])
    assert "Why is only one dataset used?" in prompt and "Is Lemma 2 tight?" in prompt
    assert "Elegant" not in prompt  # strengths are not flaws' to read
    (pool,) = [j for j in out if j.step == "pool"]
    raises = [(u["review_key"], u["quote"]) for u in pool.units if u["kind"] == "raise"]
    assert raises == [("human:h1", "Why is only one dataset used?"),
                      ("peerlake:k1", "Evaluation on a single dataset only.")]  # the question is verbatim
    orders = {j.subject_key.rsplit("|", 1)[-1]: j for j in out if j.step == "order"}
    assert orders["human:h1"].inputs["fields"] == ["summary", "questions"]
    assert orders["human:h1"].inputs["fields_not_read"] == ["strengths"]


def test_a_pool_holds_only_reviews_with_something_the_flaws_judge_reads(make_review):
    """The judgments asset scopes a flaws pool as the judge forms it, from each review's flaws view: a human
    review with only Strengths raises nothing there, so it is no member (and N does not count it)."""
    praise = make_review(("strengths", "Clear writing."), key="human:r2")
    critic = make_review(("summary", SUMMARY), ("weaknesses", WEAKNESSES), key="human:r1")
    system = make_review(("weaknesses", WEAKNESSES), key="peerlake:s1", source="peerlake", system="mlr",
                         sample_index=0)
    raw = [critic, praise, system]
    [pool] = flaws.pools([r.for_judge("flaws") for r in raw])
    assert [r.review_key for r in pool.members] == ["human:r1", "peerlake:s1"]
    [unviewed] = flaws.pools(raw)  # what the scope listed before: a member the judge never asks about
    assert "human:r2" in [r.review_key for r in unviewed.members]
