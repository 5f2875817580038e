"""The reviews a judge reads: which fields hold the argument for each kind of review, and their keys."""

import json

from judging.reviews import argument_sections, external_reviews, human_reviews, peerlake_reviews
from warehouse import EventLog, HumanReviewImported, Lake, LlmCall
from warehouse.events import ExternalReviewImported


def _llm(log, paper, config, sample, text, key):
    return LlmCall(request_key=key, prompt_template="reviewer_scoring", prompt_hash="h", reviewer_config=config,
                   purpose="review", subject_id=paper, sample_index=sample, provider="local", model="m",
                   params_json="{}", request_sha256="r", response_sha256="s", response_text=text,
                   finish_reason="stop", input_tokens=1, cached_input_tokens=0, cache_write_tokens=0,
                   output_tokens=1, reasoning_tokens=0, cost_usd=0.0, cost_status="free",
                   price_table_version="v", latency_ms=1.0, attempt=1, status="ok")


def test_each_venue_shape_gives_the_fields_that_hold_the_argument():
    v2 = {"summary": {"value": "S."}, "strengths": {"value": "Good."}, "weaknesses": {"value": "Bad."},
          "questions": {"value": "Why?"}, "rating": {"value": 6}}
    assert [f for f, _ in argument_sections(v2)] == ["summary", "strengths", "weaknesses"]  # no questions
    iclr22 = {"summary_of_the_paper": "S.", "main_review": "M.", "summary_of_the_review": "R."}
    assert [f for f, _ in argument_sections(iclr22)] == ["summary_of_the_paper", "main_review",
                                                         "summary_of_the_review"]
    assert argument_sections({"review": "All of it.", "rating": "6: accept"}) == (("review", "All of it."),)
    assert argument_sections({"rating": 6, "summary": {"value": "  "}}) == ()


def test_human_peerlake_and_imported_reviews_get_their_keys_systems_and_text(tmp_path):
    log = EventLog(Lake(tmp_path / "lake"))
    body = json.dumps({"content": {"summary": {"value": "It adapts."}, "weaknesses": {"value": "No seeds."}}})
    log.append(HumanReviewImported(paper_id="P1", review_id="r1", source="openreview", venue="V", rating=3.0,
                                   rating_scale="V:1,3,5", confidence=None, body_sha256=log.blobs.put_text(body)))
    review = {"summary": "Two sentences.", "strengths": ["clear"], "concerns": ["tiny data", "no ablation"],
              "rationale": "See p. 3.", "overall_score": 4, "confidence": 3}
    log.append(_llm(log, "P1", "cfgA", 0, json.dumps(review), "k0"))
    log.append(_llm(log, "P1", "cfgA", 1, "no json at all", "k1"))
    log.append(_llm(log, "P1", "cfgB", 0, json.dumps(review), "k2"))
    ext = json.dumps({"system": "sea", "text": "Summary:\nFine.", "line": {}})
    log.append(ExternalReviewImported(paper_id="P1", review_id="e1", system="sea", sample_index=0, score=5.0,
                                      confidence=None, body_sha256=log.blobs.put_text(ext), source_path="x",
                                      line_no=1))

    (h,) = human_reviews(log, ["P1"])
    assert (h.review_key, h.system, h.fields) == ("human:r1", "human", ("summary", "weaknesses"))
    assert h.text == "Summary:\nIt adapts.\n\nWeaknesses:\nNo seeds."

    mine = peerlake_reviews(log, ["P1"], ["cfgA"])
    assert [(r.review_key, r.sample_index) for r in mine] == [("peerlake:k0", 0), ("peerlake:k1", 1)]
    assert mine[0].fields == ("summary", "strengths", "concerns", "rationale")
    assert "- tiny data\n- no ablation" in mine[0].text
    assert mine[1].sections == ()  # unreadable answer: the judge records empty_review, not a score
    assert [r.review_key for r in peerlake_reviews(log, ["P1"], ["cfgA"], samples={"cfgA": 1})] == ["peerlake:k0"]

    (e,) = external_reviews(log, ["P1"], ["*"])
    assert (e.review_key, e.system, e.text) == ("external:sea:e1", "sea", "Text:\nSummary:\nFine.")
    assert external_reviews(log, ["P1"], ["other"]) == []
    assert human_reviews(log, ["P2"]) == []
    log.close()
