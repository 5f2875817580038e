"""LLM-Review on a loopback provider: one call with the original's three fenced blocks, the first 10
pages only, the 6,500-token cut (4 characters per token for a hosted provider), no score (null,
never 0), the repair turn and a null review with its reason, and a replay that makes no request."""

import json

import pytest

from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.base import SystemOptionError, SystemReviewRecorder, run_systems
from peerlake.reviewing.systems.llm_review import LlmReview
from tests.embedded import require_model
from tests.judging.support import ScriptedJudgeServer, assert_bounded

SPECTER = "/work/shared/data/cc_by_pdfs/acl2020_main207_SPECTER.pdf"
OUTLINE = {
    "significance_and_novelty": "Citation-informed document embeddings; a useful benchmark.",
    "reasons_to_accept": ["Strong results on seven tasks", "Released benchmark"],
    "reasons_to_reject": [
        {"reason": "Limited ablations", "details": ["No study of the triplet margin", "One random seed"]},
        {"reason": "Benchmark built by the authors", "details": ["Possible bias", "No human validation"]},
        {"reason": "Only English papers", "details": ["Scope unclear", "No multilingual test"]},
        {"reason": "Citation noise", "details": ["Self-citations", "Negative citations"]},
    ],
    "suggestions": ["Add seeds", "Test other graphs", "Discuss bias", "Release code"],
}


def _user(body: dict) -> str:
    return body["messages"][-1]["content"]


def _paper_block(body: dict) -> str:
    """The paper part of the prompt: between the title line and the task's "======" divider."""
    text = _user(body)
    start = text.index("Abstract:\n```")
    return text[start:text.index("\n\n\n======")]


def test_one_call_with_the_three_fenced_blocks_and_a_review_without_a_score(
        system_log, system_server, system_gateway, ingested_paper, make_runs):
    paper = ingested_paper()
    system_server.answer("llmreview_outline", reply=OUTLINE)
    [outcome] = run_systems(system_gateway, make_runs("llm-review", [paper]), progress=False)
    assert system_server.requests == 1 and not system_server.unmatched
    body = system_server.bodies[0]
    assert body["temperature"] == 1.0 and body["max_completion_tokens"] == 1200
    assert body["response_format"]["json_schema"]["schema"]["title"] == "llmreview_outline"
    user = _user(body)
    for block in ("Abstract:\n```\n", "\n```\n\nFigures/Tables Captions:\n```\n", "\n```\n\nMain Content:\n```\n"):
        assert block in user
    assert f'a submission titled "{paper.title}"' in user
    # the 2-page demo paper fits: nothing cut, and the main content closes its own fence
    assert _paper_block(body).endswith("\n```")

    review = outcome.review
    assert review.score is None and review.score_scale is None and review.confidence is None
    assert review.summary == OUTLINE["significance_and_novelty"]
    assert review.strengths == ("Strong results on seven tasks", "Released benchmark")
    assert review.weaknesses[0] == "Limited ablations\n  - No study of the triplet margin\n  - One random seed"
    assert len(review.weaknesses) == 4 and review.questions == ()
    assert review.extra["suggestions"] == OUTLINE["suggestions"] and review.extra["reject_sub_points"] == [2] * 4
    assert review.extra["tokens_method"] == "approx:4chars" and review.extra["truncated"] is False
    assert list(review.sections) == ["Significance and novelty", "Potential reasons for acceptance",
                                     "Potential reasons for rejection", "Suggestions for improvement"]
    assert review.sections["Suggestions for improvement"].splitlines()[0] == "1. Add seeds"

    [call] = list(system_log.iter_events("llm_call"))
    assert (call.system, call.step, call.round) == ("llm-review", "outline", 0)
    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "ok" and event.score is None and event.score_scale is None  # null, not 0
    assert json.loads(event.review_json)["score"] is None

    # replay: the same run again reaches no provider and records nothing new
    again = run_systems(system_gateway, make_runs("llm-review", [paper]), progress=False)
    assert system_server.requests == 1 and SystemReviewRecorder(system_log).record(again[0]) is None
    assert system_log.count("system_review") == 1


def test_a_long_paper_is_cut_to_6500_approximate_tokens_of_its_first_10_pages(
        system_server, system_gateway, ingested_paper, make_runs):
    paper = ingested_paper(SPECTER)  # skips when the shared data is absent
    system_server.answer("llmreview_outline", reply=OUTLINE)
    [outcome] = run_systems(system_gateway, make_runs("llm-review", [paper]), progress=False)
    block = _paper_block(system_server.bodies[0])
    # cut at 6,500 tokens x 4 characters = 26,000 characters, then the closing fence put back ("\n```")
    assert block.endswith("\n```") and len(block) <= 26_000 + 4
    assert len(block[:-4]) == 26_000  # the original cuts the token list exactly, without rounding to words
    extra = outcome.review.extra
    assert extra["truncated"] is True and extra["token_budget"] == 6500 and extra["paper_tokens"] > 6500
    assert extra["pages_read"] == list(range(1, 11))  # SPECTER has 13 pages

    # Uncut (max_input_tokens = 0, the "LLM-Review + Claude" ablation): pages 1-10 only, no references.
    runs = make_runs("llm-review", [paper], options={"max_input_tokens": 0})
    run_systems(system_gateway, runs, progress=False)
    uncut = _paper_block(system_server.bodies[1])
    hidden = {r["record_id"] for r in paper.package.removed}  # anonymization hides acknowledgements
    records = [r for r in paper.package.records if r.kind == "paragraph" and len(r.text) > 80 and r.id not in hidden]
    page9 = [r.text for r in records if r.page == 9 and r.part == "body"]
    beyond = [r.text for r in records if r.page > 10]
    refs = [r.text for r in paper.package.records if r.kind == "reference" and r.page <= 10 and len(r.text) > 40]
    assert page9 and beyond and refs
    assert all(t in uncut for t in page9)
    assert not any(t in uncut for t in beyond) and not any(t in uncut for t in refs)
    assert "Section Title: " in uncut and len(uncut) > 26_004


def test_an_unparseable_outline_gets_one_repair_turn_then_a_null_review_with_the_reason(
        system_log, system_server, system_gateway, ingested_paper, make_runs):
    paper = ingested_paper()
    system_server.answer("llmreview_outline", reply="Review outline: 1. Significance ... (markdown, not JSON)")
    [outcome] = run_systems(system_gateway, make_runs("llm-review", [paper]), progress=False)
    assert system_server.requests == 2  # the call and its repair turn
    assert "could not be used: no JSON object" in ScriptedJudgeServer.prompt(system_server.bodies[1])
    assert outcome.review is None and outcome.null_reason == "outline: unparseable answer (no JSON object)"
    event = SystemReviewRecorder(system_log).record(outcome)
    assert event.status == "null" and event.score is None and event.null_reason == outcome.null_reason


def test_an_outline_without_reasons_to_reject_is_repaired(system_server, system_gateway, ingested_paper,
                                                          make_runs):
    paper = ingested_paper()
    system_server.answer("llmreview_outline", "could not be used", reply=OUTLINE)
    system_server.answer("llmreview_outline", reply={**OUTLINE, "reasons_to_reject": []})
    [outcome] = run_systems(system_gateway, make_runs("llm-review", [paper]), progress=False)
    assert system_server.requests == 2 and "no reasons to reject" in _user(system_server.bodies[1])
    assert len(outcome.review.weaknesses) == 4


def test_options_are_checked_and_the_plan_is_one_call(ingested_paper):
    system = get_system("llm-review")
    assert isinstance(system, LlmReview) and system.templates({}) == ["llmreview_outline"]
    for bad in ({"max_pages": 0}, {"max_input_tokens": -1}, {"temperature": 3.0}, {"answer_tokens": 10}):
        with pytest.raises(SystemOptionError):
            system.resolve(bad)
    paper = ingested_paper()
    [step] = system.plan(system.resolve({}), paper.package, "openai")
    assert (step.step, step.calls, step.max_output_tokens) == ("outline", 1, 1200)
    assert step.input_chars > len(paper.package.title)


def test_the_outline_schema_is_bounded_for_a_grammar_decoding_model():
    from peerlake.prompts import load_template

    schema = load_template("llmreview_outline").output_schema
    assert_bounded(schema)
    reasons = schema["properties"]["reasons_to_reject"]
    # the original prompt's counts: 4 reasons, each with >= 2 sub-points; 4 suggestions
    assert reasons["minItems"] == reasons["maxItems"] == 4
    assert reasons["items"]["properties"]["details"]["minItems"] == 2
    assert schema["properties"]["suggestions"]["minItems"] == schema["properties"]["suggestions"]["maxItems"] == 4


@pytest.mark.model
def test_on_the_embedded_model_the_budget_leaves_the_answer_room_in_its_context(ingested_paper):
    """Tokenizer only (no generation): the long paper's prompt, counted by the model's own tokenizer,
    plus the 1,200-token answer fits the 4,096-token context, while 6,500 tokens would not."""

    from peerlake.llm_calls.tokens import count_tokens
    from peerlake.prompts import load_template
    from peerlake.warehouse import settings

    require_model()
    paper = ingested_paper(SPECTER)
    system = get_system("llm-review")
    text, info = system.prepare(system.resolve({}), paper.package, paper.title, "local", None, 1200)
    messages = load_template("llmreview_outline").render(title=paper.title, paper=text)
    prompt = sum(count_tokens(m["content"], "local") for m in messages)
    assert info["truncated"] and info["tokens_method"].startswith("llama.cpp:")
    assert info["token_budget"] < 6500 and prompt + 1200 + 64 <= settings.local_context_tokens()
