"""The crossover's sessions and feedback (issue #24 §3): a final's Scorer reviews are independent
sessions (never the seeds of its original's), an unchanged final is measured as [revision]
unchanged_final says, each Writer reads the review its setting names, and a second run replays every
call. A real Gateway and lake; the fake is the provider at the network edge (it answers by purpose)."""

import json

import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.manuscripts import ingest_pdf, latest_versions, load_package
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.base import Provider, ProviderResponse
from peerlake.llm_calls.types import Usage
from peerlake.reviewing.revision.crossover import feedback_request, revise, scoring_requests
from peerlake.reviewing.revision.seeds import session_seed
from peerlake.reviewing.revision.spec import RevisionSpec, RevisionSpecError
from peerlake.warehouse import EventLog

MODELS = {"L": {"provider": "local", "model": "big"}, "H": {"provider": "local", "model": "small"}}


class EdgeProvider(Provider):
    """The model at the network edge: a review, the first record edited, every diff accepted (or none)."""

    name = "local"
    free = True

    def __init__(self, accept: bool = True):
        self.accept = accept
        self.calls: list = []

    def complete(self, req):
        self.calls.append(req)
        if req.purpose == "revision_writer":
            first = req.response_schema["properties"]["edits"]["items"]["properties"]["record_id"]["enum"][0]
            body = {"edits": [{"record_id": first, "new_text": "A clearer paragraph."}]}
        elif req.purpose == "revision_selector":
            ids = req.response_schema["properties"]["decisions"]["items"]["properties"]["diff_id"]["enum"]
            body = {"decisions": [{"diff_id": d, "accept": self.accept, "reason": "r"} for d in ids]}
        else:
            body = {"summary": "s", "strengths": ["a"], "concerns": ["b"], "overall_score": 5, "confidence": 3}
        return ProviderResponse(text=json.dumps(body), finish_reason="stop", usage=Usage(), raw={})


def _spec(**table) -> RevisionSpec:
    return RevisionSpec.from_table({"cells": ["LLL", "LLH"], "repeats": 3, "max_edits": 1, "models": MODELS,
                                    **table})


def _run(log, provider, spec):
    """Both crossover assets' calls, as orchestration.assets.revision makes them: outcomes, then Scorers."""
    gateway = Gateway(log, providers={"local": provider})
    paper = next(e for e in log.iter_events("paper_ingested") if e.paper_id == "demo-001")

    def call_many(requests, _description):
        return gateway.call_many(requests, progress=False, return_exceptions=True)

    outcomes = revise(log, call_many, [paper], spec, "s")
    requests = scoring_requests(log, spec, [paper], outcomes, latest_versions(log))
    results = call_many(requests, "scorers")
    assert not [r for r in results if isinstance(r, BaseException)]
    return paper, outcomes, requests


@pytest.fixture
def log(lake):
    log = EventLog(lake)
    ingest_pdf(log, next(p for p in demo_papers() if p.name == "demo-001.pdf"))
    return log


def _seeds(requests, paper_id):
    return {(r.model, r.sample_index): r.params["seed"] for r in requests if r.subject_id == paper_id}


def test_a_finals_sample_k_is_not_sent_with_its_originals_seed(log):
    paper, outcomes, requests = _run(log, EdgeProvider(), _spec())
    [final_id] = {o.final_paper_id for o in outcomes}
    assert final_id.startswith("demo-001~revision-")
    original, final = _seeds(requests, paper.paper_id), _seeds(requests, final_id)
    assert set(original) == set(final) == {(m, k) for m in ("big", "small") for k in range(3)}
    for key in original:
        assert final[key] != original[key], key
    # the original keeps the standard review's seed (shared with a template reviewer of that model)
    assert original[("big", 0)] == 1000
    assert final[("big", 2)] == session_seed(final_id, "scorer", 2)
    assert len(set(final.values())) == 3  # one session per sample (both Scorers' sample k: two models)


def test_a_second_run_replays_every_call(log):
    first = EdgeProvider()
    _run(log, first, _spec())
    assert first.calls
    again = EdgeProvider()
    _run(log, again, _spec())
    assert again.calls == []


def test_an_unchanged_final_by_default_reads_its_originals_scores(log):
    paper, outcomes, requests = _run(log, EdgeProvider(accept=False), _spec())
    assert {(o.status, o.n_accepted, o.final_paper_id) for o in outcomes} == {("ok", 0, paper.paper_id)}
    assert {r.subject_id for r in requests} == {paper.paper_id}  # no call for the final side


def test_an_unchanged_final_rescored_gets_a_version_and_sessions_of_its_own(log):
    spec = _spec(unchanged_final="rescore")
    assert spec.identity != _spec().identity  # so its outcomes are its own
    paper, outcomes, requests = _run(log, EdgeProvider(accept=False), spec)
    [o] = {(o.n_accepted, o.final_paper_id) for o in outcomes}
    assert o[0] == 0 and o[1].startswith(f"{paper.paper_id}~revision-")
    original, final = _seeds(requests, paper.paper_id), _seeds(requests, o[1])
    assert len(final) == 6 and all(final[k] != original[k] for k in original)
    # the version scored is the original's text, record for record
    variant = latest_versions(log)[o[1]]
    assert [r.text for r in load_package(log.blobs, variant.package_sha256).records] == \
        [r.text for r in load_package(log.blobs, paper.package_sha256).records]


def test_unchanged_final_is_checked():
    with pytest.raises(RevisionSpecError, match="unchanged_final"):
        _spec(unchanged_final="drop")


def test_each_writer_reads_the_review_its_setting_names(log):
    # the seed: the Luna Writer read GPT-5.6-Sol's first review (S writes in no cell), Haiku its own
    models = {**MODELS, "S": {"provider": "local", "model": "sol"}}
    spec = RevisionSpec.from_table({"cells": ["LLL", "HHH"], "models": models, "feedback": {"L": "S", "H": "own"}})
    assert (spec.feedback_letter("L"), spec.feedback_letter("H")) == ("S", "H")
    from peerlake.reviewing.revision.crossover import _work

    [w] = _work(log, [next(log.iter_events("paper_ingested"))], spec)
    assert feedback_request(w, spec, "L").model == "sol" and feedback_request(w, spec, "H").model == "small"
    # one source for every Writer still reads as before
    assert _spec(feedback="H").feedback_letter("L") == "H" and _spec().feedback_letter("L") == "L"
    with pytest.raises(RevisionSpecError, match="write in no cell"):
        RevisionSpec.from_table({"cells": ["LLL"], "models": models, "feedback": {"H": "S"}})
    with pytest.raises(RevisionSpecError, match=r"feedback\.L"):
        RevisionSpec.from_table({"cells": ["LLL"], "models": models, "feedback": {"L": "X"}})
