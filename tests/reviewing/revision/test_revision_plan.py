"""The crossover's dry-run plan: exact requests where the answers they depend on are in the log,
stand-ins of the same shape where not (reviewing.revision.crossover.planned_requests)."""

import json

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.manuscripts import ingest_pdf
from peerlake.llm_calls.types import LlmResult, Usage
from peerlake.reviewing.revision.crossover import planned_requests
from peerlake.reviewing.revision.spec import RevisionSpec
from peerlake.warehouse import EventLog

SPEC = RevisionSpec.from_table({"cells": ["LLL", "LHH"], "repeats": 2, "max_edits": 2,
                                "models": {"L": {"provider": "local", "model": "big"},
                                           "H": {"provider": "local", "model": "small"}}})


def _paper(lake):
    log = EventLog(lake)
    pdf = next(p for p in demo_papers() if p.name == "demo-001.pdf")
    return log, ingest_pdf(log, pdf).event


def _answer(req) -> dict:
    """What a model would answer: a review; the first record edited; every diff accepted."""
    if req.purpose == "revision_writer":
        first = req.response_schema["properties"]["edits"]["items"]["properties"]["record_id"]["enum"][0]
        return {"edits": [{"record_id": first, "new_text": "A clearer paragraph."}]}
    if req.purpose == "revision_selector":
        ids = req.response_schema["properties"]["decisions"]["items"]["properties"]["diff_id"]["enum"]
        return {"decisions": [{"diff_id": d, "accept": True, "reason": "clearer"} for d in ids]}
    return {"summary": "s", "strengths": ["a"], "concerns": ["b"], "overall_score": 5, "confidence": 3}


def _logged(req):
    body = _answer(req)
    return LlmResult(request_key=req.request_key, event_id="e", text=json.dumps(body), parsed=body,
                     usage=Usage(), cost_usd=0.0, replayed=True)


def test_nothing_in_the_log_plans_exact_originals_and_stand_ins_for_the_rest(lake):
    log, paper = _paper(lake)
    exact, standins = planned_requests(log, lambda req: None, [paper], SPEC)
    # exact: each Scorer's 2 reviews of the original (L's first is also the Writer's feedback)
    assert sorted((r.purpose, r.model, r.sample_index) for r in exact) == [
        ("review", "big", 0), ("review", "big", 1), ("review", "small", 0), ("review", "small", 1)]
    # stand-ins: 1 Writer (its feedback is not written yet), 1 Selector per condition, and each cell's
    # Scorer twice on the final: 1 + 2 + 2 × 2 = 7
    assert sorted(r.purpose for r in standins) == ["review"] * 4 + ["revision_selector"] * 2 + ["revision_writer"]
    assert all(r.subject_id.endswith("~revision-planned") for r in standins if r.purpose == "review")


def test_answers_in_the_log_make_every_request_exact(lake):
    log, paper = _paper(lake)
    exact, standins = planned_requests(log, _logged, [paper], SPEC)
    assert standins == []
    purposes = sorted(r.purpose for r in exact)
    # 4 originals + 1 Writer + 2 Selectors + both cells' finals: LL and LH accept the same edit, so they
    # make one final manuscript, read by L twice (LLL) and H twice (LHH): 4 + 1 + 2 + 4 = 11
    assert purposes == ["review"] * 8 + ["revision_selector"] * 2 + ["revision_writer"]
    finals = {r.subject_id for r in exact if r.purpose == "review" and r.subject_id != paper.paper_id}
    assert len(finals) == 1 and next(iter(finals)).startswith(f"{paper.paper_id}~revision-")
