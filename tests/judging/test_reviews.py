"""The reviews a judge reads: which fields hold the argument for each kind of review, and their keys."""

import json

from peerlake.judging.reviews import (
    JUDGE_SECTIONS,
    JudgedReview,
    argument_sections,
    external_reviews,
    field_kind,
    human_reviews,
    peerlake_reviews,
    peerlake_sections,
    review_sections,
    system_sections,
    text_sections,
)
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, LlmCall
from peerlake.warehouse.events import ExternalReviewImported


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


# ---- what each judge reads (JUDGE_SECTIONS): the same sections for humans and systems ----------------

NEURIPS = {"summary": {"value": "It adapts."}, "strengths": {"value": "Clear."}, "weaknesses": {"value": "No seeds."},
           "questions": {"value": "Why one seed?"}, "limitations": {"value": "Not discussed."},
           "soundness": {"value": 2}, "rating": {"value": "4: borderline reject"}, "code_of_conduct": {"value": "Yes"},
           "flag_for_ethics_review": {"value": ["No ethics review needed."]}}


def _review(sections, source="human", system="human", key="human:r1"):
    return JudgedReview(review_key=key, paper_id="P1", source=source, system=system, sample_index=None,
                        sections=tuple(sections), event_id="e")


def test_every_readable_field_is_kept_ratings_and_meta_are_not():
    # the stored note has its keys sorted: the sections come back in the form's order
    content = dict(sorted(NEURIPS.items()))
    assert [f for f, _ in review_sections(content)] == ["summary", "strengths", "weaknesses", "questions",
                                                        "limitations"]
    # a recommendation in words is read; one that is a number on a scale is a rating
    iclr22 = {"summary_of_the_paper": "S.", "main_review": "M.", "recommendation": "6: marginally above",
              "correctness": "3: fine"}
    assert [f for f, _ in review_sections(iclr22)] == ["summary_of_the_paper", "main_review"]
    assert field_kind("clarity,_quality,_novelty_and_reproducibility") == "assessment"  # ICLR 2023's text field


def test_a_humans_questions_are_read_by_flaws_and_constructiveness_not_by_depth():
    r = _review(review_sections(NEURIPS))
    assert r.for_judge("depth").fields == ("summary", "strengths", "weaknesses")
    assert r.for_judge("depth").not_read == ("questions", "limitations")
    assert r.for_judge("flaws").fields == ("summary", "weaknesses", "questions")
    assert r.for_judge("constructiveness").fields == ("summary", "strengths", "weaknesses", "questions",
                                                      "limitations")
    assert "Why one seed?" not in r.for_judge("depth").text and "Why one seed?" in r.for_judge("flaws").text
    # the views of every judge are prefixes of nothing in particular, but each is its own text: a span
    # found in a view's text is found where that view's field_at says
    from peerlake.judging.spans import field_at

    flaws_view = r.for_judge("flaws")
    assert field_at(flaws_view, flaws_view.text.index("Why one seed?")) == "questions"
    assert r.for_judge("depth").view == "depth" and r.view is None


def test_icml_2025_fields_give_the_judges_more_than_the_summary():
    """PRISM's note: ICML 2025 human reviews lack Strengths/Weaknesses keys, so its judges saw only the
    Summary (561 of 3,566 characters). Mapped onto canonical sections, every judge reads the argument."""
    icml = {"overall_recommendation": "3", "summary": "Pose priors.",
            "claims_and_evidence": "Yes, categorical pose priors are crucial.",
            "methods_and_evaluation_criteria": "The metrics are standard.",
            "experimental_designs_or_analyses": "A recent method is neither cited nor discussed.",
            "essential_references_not_discussed": "PoseNet 2024.",
            "other_strengths_and_weaknesses": "None", "other_comments_or_suggestions": "Move Table 3.",
            "questions_for_authors": "1. Why no comparison?", "code_of_conduct": "Affirmed."}
    r = _review(review_sections(icml))
    depth_view, flaws_view, every = r.for_judge("depth"), r.for_judge("flaws"), r.for_judge("constructiveness")
    assert depth_view.fields == ("summary", "claims_and_evidence", "methods_and_evaluation_criteria",
                                 "experimental_designs_or_analyses", "essential_references_not_discussed",
                                 "other_strengths_and_weaknesses")
    assert "questions_for_authors" in flaws_view.fields and "other_comments_or_suggestions" not in flaws_view.fields
    assert every.fields[-2:] == ("other_comments_or_suggestions", "questions_for_authors")
    assert "overall_recommendation" not in every.fields and "code_of_conduct" not in every.fields
    assert len(depth_view.text) > 3 * len("Summary:\nPose priors.")


def test_a_systems_questions_are_not_read_by_depth_and_its_extra_sections_are():
    mlr = {"summary": None, "strengths": ["clear"], "weaknesses": ["one seed"], "questions": ["why?"],
           "recommendation": "Weak reject: the evaluation is too thin.", "score": 4.0, "confidence": None,
           "sections": {"Strengths": "- clear", "Questions": "- why?"}, "extra": {"todo": ["add seeds"]}}
    r = _review(system_sections(json.dumps(mlr)), source="peerlake", system="mlr", key="peerlake:m")
    assert r.fields == ("strengths", "weaknesses", "questions", "todo", "recommendation")
    assert r.for_judge("depth").fields == ("strengths", "weaknesses")
    assert r.for_judge("flaws").fields == ("weaknesses", "questions")
    # LLM-Review keeps its suggestions in extra; AI Scientist its limitations, and a decision in words
    llm_review = {"summary": "S.", "strengths": ["a"], "weaknesses": ["b"], "questions": [],
                  "extra": {"suggestions": ["try c"], "reject_sub_points": [2]}}
    assert system_sections(json.dumps(llm_review))[-1] == ("suggestions", "- try c")
    aisci = {"summary": "S.", "strengths": [], "weaknesses": ["w"], "questions": ["q"], "recommendation": "Reject",
             "extra": {"limitations": ["l"], "ethical_concerns": False}}
    assert [f for f, _ in system_sections(json.dumps(aisci))] == ["summary", "weaknesses", "questions",
                                                                   "limitations", "recommendation"]
    # AgentReview's form has no questions: its normalized `questions` are its suggestions for improvement
    agent = {"summary": "S.", "strengths": ["a"], "weaknesses": ["b"], "questions": ["do c"],
             "sections": {"Overall rating": "5", "Suggestions for improvement": "do c"}}
    assert [f for f, _ in system_sections(json.dumps(agent))] == ["summary", "strengths", "weaknesses",
                                                                   "suggestions"]
    # a template review: concerns are its weaknesses, the rationale an assessment both judges read
    tmpl = _review(peerlake_sections(json.dumps({"summary": "S.", "strengths": ["a"], "concerns": ["b"],
                                                  "rationale": "p. 3", "overall_score": 4, "confidence": 3})),
                   source="peerlake", system="cfg")
    assert tmpl.for_judge("depth").fields == ("summary", "strengths", "concerns", "rationale")
    assert tmpl.for_judge("flaws").fields == ("summary", "concerns", "rationale")


def test_an_imported_text_with_markdown_headings_is_cut_into_sections():
    from tests.ingest.prism_layout import DEEP_TEXT, SEA_TXT

    sea = text_sections(SEA_TXT)
    assert [f for f, _ in sea] == ["summary", "strengths", "weaknesses", "questions"]  # the Rating left out
    r = _review(sea, source="external", system="sea-e", key="external:sea-e:p")
    assert r.for_judge("depth").fields == ("summary", "strengths", "weaknesses")
    assert "computational overheads" in r.for_judge("flaws").text
    # DeepReview's #### sub-headings stay inside Weaknesses; its Soundness/Rating/Confidence numbers go
    assert [f for f, _ in text_sections(DEEP_TEXT)] == ["summary", "strengths", "weaknesses", "suggestions",
                                                        "questions"]
    # no headings, or headings that are not a review form's: one section
    assert text_sections("Summary:\nFine.") == (("text", "Summary:\nFine."),)
    assert text_sections("### After rebuttal\nThanks.\n### Minor\nTypos.") == (
        ("text", "### After rebuttal\nThanks.\n### Minor\nTypos."),)
    whole = _review(text_sections("Plain review."), source="external", system="x", key="external:x:1")
    assert all(whole.for_judge(j).fields == ("text",) for j in JUDGE_SECTIONS)


def test_an_imported_review_with_annotated_offsets_stays_whole(tmp_path):
    from peerlake.warehouse.events import SpanAnnotationImported

    log = EventLog(Lake(tmp_path / "lake"))
    text = "**Summary:**\nFine.\n\n**Weaknesses:**\nThin."
    for rid, system in (("1", "sea"), ("2", "substanreview")):
        body = json.dumps({"system": system, "text": text, "line": {}})
        log.append(ExternalReviewImported(paper_id="P1", review_id=rid, system=system, sample_index=0, score=None,
                                          confidence=None, body_sha256=log.blobs.put_text(body), source_path="x",
                                          line_no=1))
    log.append(SpanAnnotationImported(review_key="external:substanreview:2", dataset="substanreview", split="test",
                                      annotator=None, spans_json="[]", text_sha256="t", source_path="x", line_no=1))
    got = {r.review_key: r for r in external_reviews(log)}
    assert got["external:sea:1"].fields == ("summary", "weaknesses")
    assert got["external:substanreview:2"].fields == ("text",)
    assert got["external:substanreview:2"].text == "Text:\n" + text
    log.close()


def test_a_real_iclr_2026_review_gives_its_questions_to_flaws_only(shared_data):
    path = shared_data / "openreview_api_v2" / "iclr2026_v2_submission_with_replies.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    notes = [n for n in doc["details"]["replies"] if any(i.endswith("Official_Review") for i in n["invitations"])]
    assert len(notes) == 4
    for note in notes:
        r = _review(review_sections(note["content"]))
        assert r.fields == ("summary", "strengths", "weaknesses", "questions")
        assert r.for_judge("depth").fields == ("summary", "strengths", "weaknesses")
        assert r.for_judge("flaws").fields == ("summary", "weaknesses", "questions")
