"""The novelty judge end to end: a hand-made paper and review in a temp lake, related-work records in
the real offline index (BM25), a real Gateway and RetrievalClient, answers from a rule-scripted
loopback model. Pool arithmetic is checked by hand in test_candidates.py; here the relevances are
worked out from the ranks the backend recorded in its retrieval_call event."""

import dataclasses
import json

import pytest

from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.judging import novelty
from peerlake.llm_calls.gateway import Gateway
from peerlake.retrieval.backend import Backend, FatalRetrievalError
from peerlake.retrieval.client import RetrievalClient
from peerlake.warehouse.events import PaperIngested, PaperStatusRecorded, RelatedWorkImported
from tests.doubles.fake_server import Reply
from tests.judging.support import record, units_of
from tests.llm_calls.support import providers_for

TITLE = "Sparse Gated Mixtures for Tabular Learning"
ABSTRACT = "We propose sparse gated mixtures of experts for tabular data classification."
INTRO = "Gradient boosted trees dominate tabular benchmarks. A sparse gating network routes each row to experts."
CLAIM = "The idea of sparse gating is not new, it was introduced by Shazeer et al. for language models."
REVIEW = (("summary", "The paper proposes sparse gated mixtures for tabular data."),
          ("weaknesses", f"{CLAIM} The tabular benchmark is small."))
SHAZEER = "Sparsely gated mixture of experts layer"
TREES = "Boosted trees for tabular data"
PAPER_ANSWER = {"core_task": "classification of tabular data",
                "contributions": [{"name": "sparse gated mixture of experts",
                                   "claim": "Sparse gating beats trees on tables.",
                                   "description": "A gating network picks two experts per row."}],
                "key_terms": ["tabular data", "mixture of experts", "sparse gating", "gradient boosting", "routing"]}
CLAIMS_ANSWER = {"claims": [{"text": CLAIM, "stance": "not_novel", "prior_work": ["Shazeer et al."]},
                            {"text": "This paper is groundbreaking.", "stance": "novel", "prior_work": []}]}


def add_paper(log, pid="paper-1", title=TITLE, year=2022):
    recs = [TextRecord("r0", 1, "title", title, part="front"),
            TextRecord("r1", 1, "paragraph", ABSTRACT, part="front", section="Abstract"),
            TextRecord("r2", 1, "heading", "1 Introduction", section="1 Introduction"),
            TextRecord("r3", 1, "paragraph", INTRO, section="1 Introduction"),
            TextRecord("r4", 2, "paragraph", "The method trains eight experts with a top-2 gate.", section="2 Method"),
            TextRecord("r5", 3, "reference", "[1] N. Shazeer. Outrageously large networks. 2017.",
                       part="references", section="References")]
    pkg = ManuscriptPackage(pdf_sha256="a" * 64, title=title, n_pages=3, n_chars=sum(len(r.text) for r in recs),
                            records=recs, extractor="test")
    sha = log.blobs.put_text(pkg.to_json())
    log.append(PaperIngested(paper_id=pid, title=title, source_uri=f"file:///{pid}.pdf", pdf_sha256="a" * 64,
                             package_sha256=sha, n_pages=3, n_text_records=len(recs), n_chars=pkg.n_chars, year=year))


def add_related(log, work_id, title, abstract, year):
    log.append(RelatedWorkImported(work_id=work_id, title=title, abstract=abstract, year=year, venue=None,
                                   source_path="related.jsonl", line_no=1))


def add_literature(log):
    add_related(log, "rw1", SHAZEER, "A sparse gated mixture of experts layer for language models.", 2017)
    add_related(log, "rw4", "Sparsely-gated mixture-of-experts layer.",  # the same record, spelled differently
                "A sparse gated mixture of experts layer for language models", 2017)
    add_related(log, "rw2", TREES, "Gradient boosted trees on tabular benchmarks.", 2019)
    add_related(log, "rw3", "Tabular mixture of experts at scale", "Sparse experts for tabular data.", 2030)
    add_related(log, "rw5", "Protein folding with attention", "Structures from sequences.", 2021)


def script(server, paper=PAPER_ANSWER, claims=CLAIMS_ANSWER):
    server.answer("judge_novelty_paper", reply=paper)
    server.answer("judge_novelty_claims", reply=claims)
    server.answer("judge_novelty_verify", SHAZEER, reply={"proof": "Shazeer et al. introduced sparse gating.",
                                                          "label": "SUPPORTED"})
    server.answer("judge_novelty_verify", TREES, reply={"proof": "Trees say nothing about gating.",
                                                        "label": "AMBIGUOUS"})


def by_subject(judgments):
    return {j.subject_key: j for j in judgments}


def count(log, event_type):
    return sum(1 for _ in log.iter_events(event_type))


def test_a_paper_and_a_review_give_the_contract_rows(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    script(judge_server)
    ctx = make_judge_ctx(novelty)
    out = by_subject(novelty.judge(ctx, [make_review(*REVIEW)]))
    paper, review = out["paper:paper-1"], out["human:r1"]

    assert (paper.step, paper.null_reason, paper.failed_call) == ("paper", None, None)
    assert paper.units == [
        {"kind": "core_task", "text": "classification of tabular data", "name": None, "claim": None,
         "description": None},
        {"kind": "contribution", "text": "sparse gated mixture of experts", "name": "sparse gated mixture of experts",
         "claim": "Sparse gating beats trees on tables.", "description": "A gating network picks two experts per row."},
        *({"kind": "key_term", "text": t, "name": None, "claim": None, "description": None}
          for t in PAPER_ANSWER["key_terms"])]
    # the extractor read the paper up to its references, not the references
    prompt = judge_server.prompt(judge_server.bodies_for("judge_novelty_paper")[0])
    assert INTRO in prompt and "top-2 gate" in prompt and "Outrageously" not in prompt

    # one query: core task + contribution name; the backend's answer, best first
    (search,) = list(judge_log.iter_events("retrieval_call"))
    assert search.query == "classification of tabular data sparse gated mixture of experts"
    assert json.loads(search.params_json)["year_max"] == 2022
    hits = {r["candidate_id"]: r for r in json.loads(search.results_json)}
    # hits: the paper itself, rw1, its copy rw4, rw2 (shares "tabular data"); rw3 is after 2022, rw5 shares no word
    assert set(hits) == {"lake:paper-1", "related:rw1", "related:rw4", "related:rw2"}
    # the offline index gives BM25 scores normalized by the query's best: r is that score, not the rank's
    r_shazeer, r_trees = hits["related:rw1"]["score_norm"], hits["related:rw2"]["score_norm"]
    by_rank = tuple((4 - hits[c]["rank"]) / 4 for c in ("related:rw1", "related:rw2"))  # PRISM's r
    assert max(h["score_norm"] for h in hits.values()) == 1.0 and (r_shazeer, r_trees) != by_rank
    assert r_shazeer > r_trees  # 4 shared words against 2: rw1 is verified first

    assert (review.step, review.null_reason, review.failed_call) == ("claims", None, None)
    assert review.dropped == {"not_verbatim": 1}  # "This paper is groundbreaking." is not the reviewer's
    base = {"claim_index": 0, "claim_text": CLAIM, "stance": "not_novel", "prior_work": ["Shazeer et al."]}
    # the pool: self dropped, rw4 a copy of the more relevant rw1; MMR order rw1 (larger r) then rw2
    assert review.units == [
        {**base, "candidate_id": "related:rw1", "candidate_title": SHAZEER, "candidate_year": 2017, "pool_rank": 0,
         "relevance": r_shazeer, "verdict": "SUPPORTED", "reason": None},
        {**base, "candidate_id": "related:rw2", "candidate_title": TREES, "candidate_year": 2019, "pool_rank": 1,
         "relevance": r_trees, "verdict": "AMBIGUOUS", "reason": None}]
    assert review.inputs["pool"] == {"retrieved": 4, "distinct": 4, "self": 1, "future": 0, "duplicate": 1,
                                     "beyond_pool": 0, "pool": 2}
    # the verifier read the claim, the paper's abstract + introduction and the candidate
    verify = judge_server.prompt(judge_server.bodies_for("judge_novelty_verify")[0])
    assert CLAIM in verify and ABSTRACT in verify and INTRO in verify and "top-2 gate" not in verify
    # every call behind the rows: paper, claims, the search, 2 verifications
    assert sorted(type(r).__name__ for r in review.results) == ["LlmResult"] * 4 + ["RetrievalResult"]
    assert judge_server.unmatched == []

    _, events = record(ctx, novelty, [paper, review])
    assert [(e.subject_key, e.status) for e in events] == [("paper:paper-1", "ok"), ("human:r1", "ok")]
    assert units_of(events[1]) == review.units and set(json.loads(events[1].request_keys_json)) == {
        r.request_key for r in review.results}


def test_the_paper_is_extracted_once_for_all_its_reviews(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    script(judge_server)
    reviews = [make_review(*REVIEW, key="human:r1"), make_review(*REVIEW, key="human:r2")]
    out = novelty.judge(make_judge_ctx(novelty), reviews)
    assert [j.subject_key for j in out] == ["paper:paper-1", "human:r1", "human:r2"]
    assert len(judge_server.bodies_for("judge_novelty_paper")) == 1
    assert count(judge_log, "retrieval_call") == 1
    assert out[1].units == out[2].units


def test_replay_of_the_whole_judge_makes_no_call_and_records_nothing_new(judge_log, judge_server, make_judge_ctx,
                                                                      make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    script(judge_server)
    ctx = make_judge_ctx(novelty)
    first = novelty.judge(ctx, [make_review(*REVIEW)])
    _, written = record(ctx, novelty, first)
    calls, searches, requests = count(judge_log, "llm_call"), count(judge_log, "retrieval_call"), judge_server.requests
    assert len(written) == 2 and calls == 4 and searches == 1

    # a new gateway and retrieval client, as a new process would have
    again = dataclasses.replace(ctx, gateway=Gateway(judge_log, providers=providers_for(judge_server)), retrieval=None)
    second = novelty.judge(again, [make_review(*REVIEW)])
    rec, rewritten = record(again, novelty, second)
    assert (count(judge_log, "llm_call"), count(judge_log, "retrieval_call")) == (calls, searches)
    assert judge_server.requests == requests and rewritten == [] and rec.skipped == 2
    assert [j.units for j in second] == [j.units for j in first]
    assert all(r.replayed for j in second for r in j.results)


@pytest.mark.parametrize("status_year,year_max", [(2020, 2020), (None, None)])
def test_a_paper_year_from_the_venue_decision_bounds_the_search(judge_log, judge_server, make_judge_ctx, make_review,
                                                               status_year, year_max):
    add_paper(judge_log, year=None)
    judge_log.append(PaperStatusRecorded(paper_id="paper-1", venue="V", status="accepted", decision="Accept",
                                         is_accepted=True, source="test", year=status_year))
    add_literature(judge_log)
    script(judge_server)
    review = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))["human:r1"]
    (search,) = list(judge_log.iter_events("retrieval_call"))
    assert json.loads(search.params_json)["year_max"] == year_max
    found = {r["candidate_id"] for r in json.loads(search.results_json)}
    # rw3 (2030) shares "tabular", "mixture", "experts", "sparse": only a known year keeps it out
    assert ("related:rw3" in found) is (year_max is None)
    assert review.inputs["pool"]["future"] == 0  # the backend already applied the bound; unknown: nothing is later


def test_a_lake_with_nothing_but_the_paper_gives_no_candidates(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)  # the index holds only the paper itself, which the pool drops
    script(judge_server)
    out = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))
    review = out["human:r1"]
    assert review.null_reason is None and review.units == [
        {"claim_index": 0, "claim_text": CLAIM, "stance": "not_novel", "prior_work": ["Shazeer et al."],
         "candidate_id": None, "candidate_title": None, "candidate_year": None, "pool_rank": None,
         "relevance": None, "verdict": None, "reason": "no_candidates"}]
    assert review.inputs["pool"]["self"] == 1 and review.inputs["pool"]["pool"] == 0
    assert judge_server.bodies_for("judge_novelty_verify") == []


def test_an_unreadable_verdict_is_a_row_without_verdict(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    judge_server.answer("judge_novelty_verify", SHAZEER, reply={"proof": "hm", "label": "MAYBE"})
    judge_server.answer("judge_novelty_verify", TREES, reply="I cannot tell.")
    script(judge_server)
    review = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))["human:r1"]
    assert [(u["candidate_id"], u["verdict"], u["reason"]) for u in review.units] == [
        ("related:rw1", None, "verdict_unparseable"), ("related:rw2", None, "verdict_unparseable")]


def test_claims_beyond_max_claims_are_counted_not_verified(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    second = "The tabular benchmark is small."
    script(judge_server, claims={"claims": [{"text": CLAIM, "stance": "not_novel", "prior_work": []},
                                            {"text": second, "stance": "somewhat", "prior_work": []},
                                            {"text": CLAIM, "stance": "not_novel", "prior_work": []}]})
    ctx = make_judge_ctx(novelty, options={"verify_top": 1}, caps=(("novelty_claims", 1),))
    review = by_subject(novelty.judge(ctx, [make_review(*REVIEW)]))["human:r1"]
    # claim 1 kept; claim 2 over the cap of 1; claim 3 the same words as claim 1
    assert review.dropped == {"over_max_claims": 1, "duplicate": 1}
    assert (review.inputs["max_claims"], review.inputs["claims_answered"]) == (1, 3)
    assert [(u["claim_index"], u["candidate_id"]) for u in review.units] == [(0, "related:rw1")]
    assert len(judge_server.bodies_for("judge_novelty_verify")) == 1  # 1 claim × verify_top 1
    (body,) = judge_server.bodies_for("judge_novelty_claims")
    # under the cap the schema allows one more than the cap (so the next is seen and counted), the prompt says so
    assert body["response_format"]["json_schema"]["schema"]["properties"]["claims"]["maxItems"] == 2
    assert "in the review, at most 1." in judge_server.prompt(body)


def test_a_hosted_judge_is_asked_for_every_claim_and_keeps_them(judge_log, judge_server, make_judge_ctx,
                                                               make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    claims = [{"text": CLAIM, "stance": "not_novel", "prior_work": []},
              {"text": "The tabular benchmark is small.", "stance": "unclear", "prior_work": []}]
    script(judge_server, claims={"claims": claims})
    out = by_subject(novelty.judge(make_judge_ctx(novelty, options={"verify_top": 1}),
                                   [make_review(*REVIEW)]))["human:r1"]
    assert out.dropped == {} and out.inputs["max_claims"] is None  # no cap on a hosted model
    assert sorted({u["claim_index"] for u in out.units}) == [0, 1]
    (body,) = judge_server.bodies_for("judge_novelty_claims")
    assert "maxItems" not in body["response_format"]["json_schema"]["schema"]["properties"]["claims"]
    prompt = judge_server.prompt(body)
    assert "List ALL the statements" in prompt and "in the review, at most" not in prompt and "up to 5" not in prompt


def test_an_unknown_stance_is_kept_as_unclear_and_counted(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    script(judge_server, claims={"claims": [{"text": CLAIM, "stance": "somewhat", "prior_work": "Shazeer"}]})
    review = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))["human:r1"]
    assert review.dropped == {"stance_unclear": 1}
    assert (review.units[0]["stance"], review.units[0]["prior_work"]) == ("unclear", [])


@pytest.mark.parametrize("claims", [{"claims": []}, {"claims": [{"text": "Totally new!", "stance": "novel",
                                                                 "prior_work": []}]}])
def test_no_verbatim_claim_is_null_no_claims(judge_log, judge_server, make_judge_ctx, make_review, claims):
    add_paper(judge_log)
    add_literature(judge_log)
    script(judge_server, claims=claims)
    review = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))["human:r1"]
    assert (review.null_reason, review.units) == ("no_claims", [])
    assert review.dropped == ({"not_verbatim": 1} if claims["claims"] else {})
    assert count(judge_log, "retrieval_call") == 0 and judge_server.bodies_for("judge_novelty_verify") == []


@pytest.mark.parametrize("step,paper,claims", [
    ("paper", "no JSON here", CLAIMS_ANSWER),
    ("paper", {"core_task": "x", "key_terms": []}, CLAIMS_ANSWER),  # no contributions list: wrong shape
    ("claims", PAPER_ANSWER, "Sure! The review is great."),
    ("claims", PAPER_ANSWER, {"novelty": []}),
])
def test_an_unparseable_answer_is_null_with_its_step(judge_log, judge_server, make_judge_ctx, make_review,
                                                     step, paper, claims):
    add_paper(judge_log)
    script(judge_server, paper=paper, claims=claims)
    out = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))
    if step == "paper":
        assert out["paper:paper-1"].null_reason == "unparseable:paper"
        assert out["human:r1"].null_reason == "paper:unparseable:paper"
        assert judge_server.bodies_for("judge_novelty_claims") == []  # nothing to verify against: no call
    else:
        assert out["paper:paper-1"].null_reason is None
        assert out["human:r1"].null_reason == "unparseable:claims"


def test_a_paper_without_contributions_nulls_its_reviews(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    script(judge_server, paper={"core_task": "tables", "contributions": [{"name": " "}], "key_terms": []})
    out = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))
    assert out["paper:paper-1"].null_reason == "no_contributions"
    assert out["paper:paper-1"].dropped == {"bad_contribution": 1}
    assert out["human:r1"].null_reason == "paper:no_contributions"


def test_a_paper_not_in_the_lake_nulls_its_reviews_without_a_call(judge_log, judge_server, make_judge_ctx,
                                                                  make_review):
    out = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW, paper_id="ghost")]))
    assert out["paper:ghost"].null_reason == "no_manuscript"
    assert out["human:r1"].null_reason == "paper:no_manuscript"
    assert judge_server.requests == 0


def test_an_empty_review_makes_no_call(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    script(judge_server)
    out = novelty.judge(make_judge_ctx(novelty), [make_review(key="human:empty")])
    assert [(j.subject_key, j.null_reason) for j in out] == [("human:empty", "empty_review")]
    assert judge_server.requests == 0 and count(judge_log, "retrieval_call") == 0


def test_a_failed_model_call_is_not_recorded(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    add_literature(judge_log)
    script(judge_server)
    judge_server.rules.insert(0, ("judge_novelty_claims", ("human-two",), Reply(status=400)))
    reviews = [make_review(*REVIEW, key="human:r1"),
               make_review(("summary", "human-two says: the method is new."), key="human:r2")]
    ctx = make_judge_ctx(novelty)
    out = by_subject(novelty.judge(ctx, reviews))
    assert out["human:r2"].failed_call is not None and out["human:r1"].failed_call is None
    rec, events = record(ctx, novelty, list(out.values()))
    assert sorted(e.subject_key for e in events) == ["human:r1", "paper:paper-1"] and rec.failed == 1


def test_a_failed_paper_call_fails_its_reviews(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    judge_server.answer("judge_novelty_paper", reply=Reply(status=400))
    out = by_subject(novelty.judge(make_judge_ctx(novelty), [make_review(*REVIEW)]))
    assert out["paper:paper-1"].failed_call is not None
    assert out["human:r1"].failed_call.startswith("paper: ") and out["human:r1"].null_reason is None


class _DownBackend(Backend):
    """A literature service that refuses every search (the network edge, as a 401 would)."""

    name = "offline"

    def search(self, req):
        raise FatalRetrievalError("401 unauthorized", status=401)


def test_a_failed_search_is_a_failed_call(judge_log, judge_server, make_judge_ctx, make_review):
    add_paper(judge_log)
    script(judge_server)
    ctx = make_judge_ctx(novelty)
    ctx.retrieval = RetrievalClient(judge_log, backends={"offline": _DownBackend()}, max_attempts=1)
    out = by_subject(novelty.judge(ctx, [make_review(*REVIEW)]))
    assert out["human:r1"].failed_call.startswith("retrieval: ")
    assert judge_server.bodies_for("judge_novelty_verify") == []
    # the failed attempt is on record; no answer is
    assert [e.status for e in judge_log.iter_events("retrieval_call")] == ["error"]
