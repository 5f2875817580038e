"""[judging] claims_without_paper (what `peerlake validate-judges disapere` sets: DISAPERE ships reviews
without their papers): the novelty judge still extracts a review's claims and stances when the lake has no
manuscript of its paper, with no search, so every claim is a no_candidates row; off, such a review stays null
(paper:no_manuscript) without any call."""

from peerlake.judging import novelty
from tests.judging.support import record, units_of

CLAIM = "The idea of adaptive damping is novel."
REVIEW = (("text", f"A new optimizer. {CLAIM} The experiments use only MNIST."),)


def test_claims_are_extracted_without_the_paper_and_score_nothing(judge_log, judge_server, make_judge_ctx,
                                                                   make_review):
    judge_server.answer("judge_novelty_claims", CLAIM, reply={"claims": [
        {"text": CLAIM, "stance": "novel", "prior_work": []}]})
    ctx = make_judge_ctx(novelty, options={"claims_without_paper": True})
    out = {j.subject_key: j for j in novelty.judge(ctx, [make_review(*REVIEW, paper_id="forumA")])}
    paper, review = out["paper:forumA"], out["human:r1"]
    assert paper.null_reason == "no_manuscript" and judge_server.bodies_for("judge_novelty_paper") == []
    assert (review.null_reason, review.failed_call, review.inputs["paper"]) == (None, None, "no_manuscript")
    assert review.units == [{"claim_index": 0, "claim_text": CLAIM, "stance": "novel", "prior_work": [],
                             "candidate_id": None, "candidate_title": None, "candidate_year": None,
                             "pool_rank": None, "relevance": None, "verdict": None, "reason": "no_candidates"}]
    assert sum(1 for _ in judge_log.iter_events("retrieval_call")) == 0  # nothing to search for
    _, events = record(ctx, novelty, [review])
    assert [units_of(e)[0]["stance"] for e in events] == ["novel"]  # recorded as ok: the card reads its stances


def test_without_the_option_a_review_of_no_manuscript_is_null_without_a_call(judge_log, judge_server,
                                                                              make_judge_ctx, make_review):
    out = {j.subject_key: j for j in novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW, paper_id="f")])}
    assert out["human:r1"].null_reason == "paper:no_manuscript" and judge_server.requests == 0
