"""MLR and MLR-Combined against a loopback provider: the call sequence, the page split, the agents
on and off, the final review's parse (and its null path), replay, page images, the plan."""

import json
import re

import pytest

from peerlake.prompts import load_schema, load_template
from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.base import PURPOSE, SystemOptionError, SystemReviewRecorder, run_systems
from peerlake.reviewing.systems.mlr import budgets, select_notes
from tests.conftest import SHARED_DATA
from tests.judging.support import ScriptedJudgeServer, assert_bounded
from tests.llm_calls.support import providers_for

SPECTER = SHARED_DATA / "cc_by_pdfs" / "acl2020_main207_SPECTER.pdf"  # 13 pages: body 1-9, appendix 12-13
OUTLINE = {"paper_type": "new method", "context": "adapters", "assumptions": "few labels", "contributions": ["GRA"],
           "clarity": "clear"}
NOTES = {"notes": [{"kind": "claim", "point": "GRA beats fine-tuning", "evidence": "Table 1, p. 2"},
                   {"kind": "gap", "point": "no seeds reported", "evidence": "p. 2"}]}
FINAL = {"strengths": ["simple"], "weaknesses": ["one dataset"], "questions": ["why gates?"],
         "overall_recommendation": "Weak accept.", "score": 6}
APPENDIX_SUMMARY = "APPENDIX-SUMMARY: the baselines are described in detail."
LIT_REPORT = "LIT-REPORT: SpectralWarmup is unrelated."


def _script(server, final=FINAL, todo=False):
    server.answer(None, "<appendix>", reply=APPENDIX_SUMMARY)
    server.answer(None, "Related works found by the search", reply=LIT_REPORT)
    server.answer("mlr_outline", reply=OUTLINE)
    server.answer("mlr_notes", reply=NOTES)
    server.answer("mlr_final_todo" if todo else "mlr_final", reply=final)


def _steps(log):
    """(step, round) of every llm_call event, in the order they were made."""
    return [(e.step, e.round) for e in sorted(log.iter_events("llm_call"), key=lambda e: e.occurred_at)]


def _user(body) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_mlr_on_a_paper_without_appendix_makes_three_passes_and_replays(system_log, system_server, system_gateway,
                                                                        ingested_paper, make_runs):
    _script(system_server)
    runs = make_runs("mlr", [ingested_paper()])
    [out] = run_systems(system_gateway, runs, progress=False)
    # demo-001 has no appendix: no appendix call, literature agent off by default → 3 calls
    assert system_server.requests == 3 and not system_server.unmatched
    assert _steps(system_log) == [("pass1", 0), ("pass2", 0), ("pass3", 0)]
    assert [ScriptedJudgeServer.schema_title(b) for b in system_server.bodies] == ["mlr_outline", "mlr_notes",
                                                                                   "mlr_final"]
    calls = list(system_log.iter_events("llm_call"))
    assert {c.purpose for c in calls} == {PURPOSE} and {c.system for c in calls} == {"mlr"}
    params = {c.step: json.loads(c.params_json) for c in calls}
    assert {s: (p["temperature"], p["max_tokens"]) for s, p in params.items()} == {
        "pass1": (0.7, 500), "pass2": (0.7, 800), "pass3": (0.7, 1000)}
    pass1, pass2, pass3 = (_user(b) for b in system_server.bodies)
    # pass 1 reads title, headings, abstract, introduction/conclusion, references
    assert "Gated Residual Adapters" in pass1 and "Section headings:" in pass1 and "References:" in pass1
    assert "- contributions: GRA" in pass2 and "[page 2]" in pass2  # the outline guides the body read
    assert "[claim] GRA beats fine-tuning (evidence: Table 1, p. 2)" in pass3
    assert "None: the paper has no appendix." in pass3 and "Literature report" not in pass3
    assert "10: Award quality" in pass3 and "1: Very strong reject" in pass3  # the rubric text is in the prompt
    assert not any("images" in m for b in system_server.bodies for m in b["messages"])  # not a vision model
    assert not list(system_log.iter_events("retrieval_call"))

    r = out.review
    assert (r.strengths, r.weaknesses, r.questions) == (("simple",), ("one dataset",), ("why gates?",))
    assert (r.recommendation, r.score, r.score_scale, r.confidence, r.summary) == ("Weak accept.", 6.0,
                                                                                  "neurips_1_10", None, None)
    assert list(r.sections) == ["Strengths", "Weaknesses", "Questions", "Overall Recommendation", "Score"]
    assert r.extra["appendix"] == "no appendix: appendix agent skipped (no call)" and r.extra["todo"] is None
    assert r.extra["outline"] == OUTLINE and [n["selected"] for n in r.extra["notes"]] == [True, True]
    ev = SystemReviewRecorder(system_log, study="system-test").record(out)
    assert ev.status == "ok" and ev.score == 6.0 and [c["step"] for c in json.loads(ev.calls_json)] == [
        "pass1", "pass2", "pass3"]

    # A second run replays every call: nothing reaches the server, nothing new is recorded.
    again = run_systems(type(system_gateway)(system_log, providers=providers_for(system_server)),
                        make_runs("mlr", [ingested_paper()]), progress=False)
    rec = SystemReviewRecorder(system_log, study="system-test")
    assert system_server.requests == 3 and rec.record(again[0]) is None and rec.skipped == 1


def test_a_longer_paper_is_split_and_its_appendix_reaches_only_the_appendix_agent(system_server, system_gateway,
                                                                                  ingested_paper, make_runs):
    paper = ingested_paper(SPECTER)
    _script(system_server)
    # SPECTER's body is on pages 1-9; a 5-page cap keeps 1-5 and cuts 4 (9 - 5)
    [out] = run_systems(system_gateway, make_runs("mlr", [paper], options={"max_body_pages": 5}), progress=False)
    assert system_server.requests == 4 and not system_server.unmatched
    appendix, pass1, pass2, pass3 = (_user(b) for b in system_server.bodies)
    assert "<appendix>" in appendix and "Baseline Details" in appendix
    assert not any("Baseline Details" in text for text in (pass1, pass2, pass3))
    assert "[page 5]" in pass2 and "[page 6]" not in pass2 and "[page 12]" not in pass2
    assert APPENDIX_SUMMARY in pass3
    assert out.review.extra["body_pages"] == [1, 2, 3, 4, 5] and out.review.extra["cut_pages"] == 4
    assert out.review.extra["appendix"] == "summarized" and out.review.extra["appendix_summary"] == APPENDIX_SUMMARY


def test_the_default_body_cap_is_ten_pages(ingested_paper):
    from peerlake.reviewing.systems import manuscript

    parts = manuscript.split(ingested_paper(SPECTER).package, max_pages=10)
    # 9 body pages fit under the 10-page cap: nothing cut, and no appendix page in the body
    assert parts.body_pages == tuple(range(1, 10)) and parts.cut_pages == 0
    assert "Baseline Details" in parts.appendix and "Baseline Details" not in parts.body


def test_with_the_appendix_agent_off_no_appendix_call_is_made(system_server, system_gateway, ingested_paper,
                                                             make_runs):
    _script(system_server)
    [out] = run_systems(system_gateway, make_runs("mlr", [ingested_paper(SPECTER)],
                                                  options={"appendix_agent": False}), progress=False)
    assert system_server.requests == 3
    assert "None: the appendix agent is off." in _user(system_server.bodies[-1])
    assert out.review.extra["appendix"] == "appendix agent off" and out.review.extra["appendix_summary"] is None


def test_the_literature_agent_searches_logs_and_replays(system_log, system_server, system_gateway, ingested_paper,
                                                        make_runs):
    from peerlake.ingest.manuscripts import ingest_pdf
    from tests.reviewing.systems.conftest import DEMO_PAPER

    paper = ingested_paper()
    for other in ("demo-002", "demo-003", "demo-004"):  # works the offline index can find
        ingest_pdf(system_log, DEMO_PAPER.with_name(f"{other}.pdf"))
    _script(system_server)
    runs = make_runs("mlr", [paper], options={"literature_agent": True})
    [out] = run_systems(system_gateway, runs, progress=False)
    searches = list(system_log.iter_events("retrieval_call"))
    # two queries: the title and the abstract's first sentence
    assert len(searches) == 2 and {s.purpose for s in searches} == {"system_literature"}
    assert _steps(system_log) == [("literature", 0), ("pass1", 0), ("pass2", 0), ("pass3", 0)]
    lit = out.review.extra["literature"]
    assert lit["queries"][0] == paper.title and "lake:demo-001" not in lit["works"] and lit["works"]
    literature = _user(system_server.bodies[0])
    assert "Gated Residual Adapters for Low-Resource Text Classification (" not in literature  # not itself
    assert LIT_REPORT in _user(system_server.bodies[-1]) and out.review.extra["literature_report"] == LIT_REPORT

    # Second run: the searches replay from their events and the calls from theirs.
    from peerlake.reviewing.systems import mlr

    mlr._CLIENT = None  # a fresh process would build its own retrieval client
    again = run_systems(type(system_gateway)(system_log, providers=providers_for(system_server)),
                        make_runs("mlr", [paper], options={"literature_agent": True}), progress=False)
    assert system_server.requests == 4 and again[0].review == out.review
    assert len(list(system_log.iter_events("retrieval_call"))) == 2


def test_mlr_combined_makes_one_review_call(system_log, system_server, system_gateway, ingested_paper, make_runs):
    doc = {"outline": OUTLINE, "notes": NOTES["notes"], **FINAL, "score": 4}
    system_server.answer("mlr_combined", reply=doc)
    [out] = run_systems(system_gateway, make_runs("mlr-combined", [ingested_paper()]), progress=False)
    assert system_server.requests == 1 and _steps(system_log) == [("combined", 0)]
    prompt = _user(system_server.bodies[0])
    assert "<main_text>" in prompt and "First pass" in prompt and "10: Award quality" in prompt
    assert json.loads(next(c.params_json for c in system_log.iter_events("llm_call")))["max_tokens"] == 1300
    r = out.review
    assert r.score == 4.0 and r.extra["outline"] == OUTLINE and len(r.extra["notes"]) == 2


def test_the_todo_list_variant_adds_its_section(system_server, system_gateway, ingested_paper, make_runs):
    _script(system_server, final={**FINAL, "todo": ["report seeds"]}, todo=True)
    [out] = run_systems(system_gateway, make_runs("mlr", [ingested_paper()], options={"todo_list": True}),
                        progress=False)
    assert out.review.sections["To-do List"] == "- report seeds" and out.review.extra["todo"] == ["report seeds"]


@pytest.mark.parametrize(("final", "reason"), [
    ("I think it is fine.", "pass3: unparseable answer (no JSON object)"),
    ({**FINAL, "score": 11}, "pass3: unparseable answer (score 11 is not an integer 1-10)"),
    ({k: v for k, v in FINAL.items() if k != "score"}, "pass3: unparseable answer (missing score)"),
])
def test_an_unparseable_final_review_is_null_with_its_reason(system_log, system_server, system_gateway,
                                                             ingested_paper, make_runs, final, reason):
    _script(system_server, final=final)
    [out] = run_systems(system_gateway, make_runs("mlr", [ingested_paper()]), progress=False)
    # pass1, pass2, pass3 and its one repair turn (which gets the same bad answer) = 4 calls
    assert system_server.requests == 4 and _steps(system_log)[-2:] == [("pass3", 0), ("pass3", 0)]
    assert out.review is None and out.null_reason == reason
    ev = SystemReviewRecorder(system_log).record(out)
    assert (ev.status, ev.null_reason, ev.score, ev.review_json) == ("null", reason, None, "{}")


def test_a_vision_model_gets_the_body_page_renders_with_the_pass2_text(system_server, system_gateway,
                                                                       ingested_paper, make_runs):
    _script(system_server)
    runs = make_runs("mlr", [ingested_paper()], model="gpt-4o")
    [out] = run_systems(system_gateway, runs, progress=False)
    parts = [[p["type"] for p in b["messages"][-1]["content"]] if isinstance(b["messages"][-1]["content"], list)
             else ["text"] for b in system_server.bodies]
    # only pass 2 carries images: its text, then demo-001's 2 body pages
    assert parts == [["text"], ["text", "image_url", "image_url"], ["text"]]
    assert out.review.extra["page_images"] == "2 body page(s) at 100 dpi"


def test_the_local_model_and_page_images_never_get_images(system_log, ingested_paper, make_runs):
    from peerlake.reviewing.systems import manuscript

    paper = ingested_paper()
    impl = get_system("mlr")
    parts = manuscript.split(paper.package)
    for system_run, why in ((make_runs("mlr", [paper], provider="local", model="embedded")[0],
                             "text only: the model does not accept images"),
                            (make_runs("mlr", [paper], model="gpt-4o", options={"page_images": "never"})[0], "off")):
        system_run.log = system_log
        req = system_run.request("pass2", "mlr_notes", temperature=0.7, body_text="B", outline="O")
        extra = {}
        assert impl._with_images(system_run, req, parts, extra) is req and extra["page_images"] == why


def test_notes_are_selected_as_the_longest_prefix_that_fits():
    notes = [{"kind": "claim", "point": "a" * 10, "evidence": ""}, {"kind": "gap", "point": "b" * 10, "evidence": ""},
             {"kind": "claim", "point": "c", "evidence": ""}]
    # "- [claim] aaaaaaaaaa" is 20 chars + newline = 21; two notes 21 + 19 ("- [gap] bbbbbbbbbb" 18 + 1) = 40
    assert select_notes(notes, 40) == (notes[:2], notes[2:])
    assert select_notes(notes, 39) == (notes[:1], notes[1:])  # the third would fit, but selection is a prefix


def test_budgets_fit_the_local_context(monkeypatch):
    monkeypatch.delenv("PEERLAKE_REVIEW_MAX_CHARS", raising=False)
    # R = 9,000 for local: 2R/3 = 6,000, R/2 = 4,500, R/3 = 3,000, R/6 = 1,500, R/12 = 750
    assert budgets(get_system("mlr").defaults, "local") == {
        "first_pass": 4500, "body": 6000, "appendix": 6000, "notes": 3000, "works": 3000, "report": 1500,
        "combined": 3000, "combined_report": 750}
    assert budgets({**get_system("mlr").defaults, "body_chars": 2000}, "local")["body"] == 2000


def test_plan_lists_every_call_with_its_prompt_size(ingested_paper):
    impl, combined = get_system("mlr"), get_system("mlr-combined")
    demo = ingested_paper().package
    steps = impl.plan(impl.defaults, demo, "local")
    assert [(s.step, s.calls, s.max_output_tokens) for s in steps] == [("pass1", 1, 500), ("pass2", 1, 800),
                                                                       ("pass3", 1, 1000)]
    # pass 2 sends the whole 2-page body (under the 6,000-char local budget) and the outline as 500 * 4 chars
    assert steps[1].input_chars > 2000 + len(demo.body_text()) * 0.9
    specter = ingested_paper(SPECTER).package
    lit = {**impl.defaults, "literature_agent": True}
    assert [s.step for s in impl.plan(lit, specter, "openai")] == ["appendix", "literature", "pass1", "pass2",
                                                                   "pass3"]
    assert [s.step for s in combined.plan(combined.defaults, specter, "openai")] == ["appendix", "combined"]


def test_options_are_checked():
    impl = get_system("mlr")
    for bad in ({"page_images": "sometimes"}, {"retrieval": "google"}, {"max_body_pages": 0},
                {"body_chars": 50}, {"literature_queries": 3}, {"colour": "red"}):
        with pytest.raises(SystemOptionError):
            impl.resolve(bad)
    assert impl.templates(impl.defaults) == ["mlr_appendix", "mlr_outline", "mlr_notes", "mlr_final"]
    assert get_system("mlr-combined").templates({**impl.defaults, "todo_list": True, "literature_agent": True}) == [
        "mlr_appendix", "mlr_literature", "mlr_combined_todo"]


def test_every_final_template_carries_the_same_rubric_and_bounded_schemas():
    rubrics = set()
    for name in ("mlr_final", "mlr_final_todo", "mlr_combined", "mlr_combined_todo"):
        source = load_template(name).source
        rubrics.add(re.search(r"Score on the NeurIPS 10-point scale:.*?1: Very strong reject[^\n]*", source, re.S)[0])
        assert_bounded(load_schema(name))
    assert len(rubrics) == 1 and len(rubrics.pop().splitlines()) == 11  # the heading and anchors 10 ... 1
    for name in ("mlr_outline", "mlr_notes"):
        assert_bounded(load_schema(name))
