"""The offline index: BM25 over every work the lake knows, keyed by the index's version."""

import math

import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.papers import ingest_pdf
from peerlake.ingest.related_work import import_related_work
from peerlake.retrieval import RetrievalClient, RetrievalRequest
from peerlake.retrieval.corpus import LakeCorpus, package_abstract
from peerlake.warehouse.events import PaperStatusRecorded


def _offline(query: str, **kw) -> RetrievalRequest:
    return RetrievalRequest(backend="offline", query=query, purpose="judge_novelty_retrieval", **kw)


@pytest.fixture
def demo_lake(log):
    for pdf in demo_papers():
        ingest_pdf(log, pdf, is_synthetic=True)
    return log


def test_finds_the_paper_a_query_describes(demo_lake):
    client = RetrievalClient(demo_lake)
    # Words of demo-003's abstract, none of its title: the abstract really is indexed.
    hit = client.search(_offline("noisy labels smoothing defence")).candidates
    assert hit[0].candidate_id == "lake:demo-003"
    assert hit[0].title == "When Does Label Smoothing Help Under Label Noise? A Controlled Study"
    assert hit[0].abstract.startswith("Label smoothing is often recommended")
    assert "Anonymous authors" not in hit[0].abstract  # the abstract section, not the front matter
    hit = client.search(_offline("curvature-aware learning-rate warmup vision transformers")).candidates
    assert hit[0].candidate_id == "lake:demo-002"
    assert hit[0].score_norm == 1.0 and [c.rank for c in hit] == list(range(len(hit)))


def test_excludes_nothing_by_itself(demo_lake, write_jsonl):
    """The paper under review and later works come back: dropping them is the judge's job."""
    import_related_work(demo_lake, write_jsonl([
        {"id": "future", "title": "Gated residual adapters revisited", "year": 2031}]))
    ids = [c.candidate_id for c in RetrievalClient(demo_lake).search(
        _offline("Gated Residual Adapters for Low-Resource Text Classification")).candidates]
    assert ids[:2] == ["lake:demo-001", "related:future"]


def test_year_max_is_honoured_when_asked_and_unknown_years_are_kept(log, write_jsonl):
    import_related_work(log, write_jsonl([
        {"id": "old", "title": "adapters for transfer", "year": 2019},
        {"id": "new", "title": "adapters for transfer learning", "year": 2024},
        {"id": "undated", "title": "adapters everywhere"}]))
    client = RetrievalClient(log)
    assert {c.candidate_id for c in client.search(_offline("adapters", year_max=2020)).candidates} == {
        "related:old", "related:undated"}
    assert len(client.search(_offline("adapters")).candidates) == 3


def test_bm25_scores_and_their_normalization_by_hand(log, write_jsonl):
    # Two title-only works: A = "alpha beta" (2 terms), B = "alpha gamma delta" (3 terms); avgdl 2.5.
    import_related_work(log, write_jsonl([{"id": "A", "title": "alpha beta"},
                                          {"id": "B", "title": "alpha gamma delta"}]))
    client = RetrievalClient(log)
    # Lucene BM25, k1 1.5, b 0.75: idf = ln(1 + (N - df + 0.5)/(df + 0.5)); tf part = tf/(tf + k1(1 - b + b·dl/avgdl))
    # A: 1/(1 + 1.5·(0.25 + 0.75·2/2.5)) = 1/2.275; B: 1/(1 + 1.5·(0.25 + 0.75·3/2.5)) = 1/2.725.
    beta = client.search(_offline("beta")).candidates  # df 1 of 2: idf ln(1 + 1.5/1.5) = ln 2
    assert [c.candidate_id for c in beta] == ["related:A"]  # B shares no term: not a hit
    assert beta[0].score == pytest.approx(math.log(2) / 2.275, abs=1e-5)  # 0.304680
    alpha = client.search(_offline("alpha")).candidates  # df 2 of 2: idf ln(1 + 0.5/2.5) = ln 1.2
    assert [c.candidate_id for c in alpha] == ["related:A", "related:B"]  # the shorter one first
    assert alpha[0].score == pytest.approx(math.log(1.2) / 2.275, abs=1e-5)  # 0.080142
    assert alpha[1].score == pytest.approx(math.log(1.2) / 2.725, abs=1e-5)  # 0.066907
    # Normalized by the query's top score: 1.0 and 2.275/2.725 = 0.834862.
    assert [c.score_norm for c in alpha] == [1.0, pytest.approx(2.275 / 2.725, abs=1e-5)]


def test_a_related_work_record_changes_the_index_version(log, write_jsonl):
    import_related_work(log, write_jsonl([{"id": "A", "title": "alpha beta"}], "one.jsonl"))
    client = RetrievalClient(log)
    first = client.search(_offline("alpha"))
    v1 = client.bind(_offline("alpha")).index_version
    import_related_work(log, write_jsonl([{"id": "C", "title": "alpha omega", "year": 2020}], "two.jsonl"))
    v2 = client.bind(_offline("alpha")).index_version
    assert v1 != v2
    grown = client.search(_offline("alpha"))
    assert not grown.replayed and grown.request_key != first.request_key
    assert {c.candidate_id for c in grown.candidates} == {"related:A", "related:C"}
    # The old version's answer still replays for a request naming it (a fresh client, as a later run).
    old = RetrievalClient(log).search(_offline("alpha", index_version=v1))
    assert old.replayed and old.event_id == first.event_id and old.candidates == first.candidates
    assert [e.status for e in log.iter_events("retrieval_call")] == ["ok", "ok"]


def test_an_outgrown_version_is_not_searched_again(log, write_jsonl):
    import_related_work(log, write_jsonl([{"id": "A", "title": "alpha beta"}]))
    with pytest.raises(Exception, match="StaleIndexVersion"):
        RetrievalClient(log).search(_offline("alpha", index_version="0" * 64))
    (ev,) = log.iter_events("retrieval_call")
    assert (ev.status, ev.error_type, ev.attempt) == ("error", "StaleIndexVersion", 1)  # fatal: no retry


def test_status_only_papers_are_indexed_by_title_and_an_empty_lake_finds_nothing(log):
    client = RetrievalClient(log)
    assert client.search(_offline("anything")).candidates == ()
    log.append(PaperStatusRecorded(paper_id="or-1", venue="ICLR.cc/2025/Conference", status="accepted",
                                   decision="Accept (Poster)", is_accepted=True, source="openreview",
                                   title="Sparse mixture routing", year=2025))
    (c,) = client.search(_offline("sparse routing")).candidates
    assert (c.candidate_id, c.abstract, c.year, c.venue) == ("lake:or-1", None, 2025, "ICLR.cc/2025/Conference")
    assert client.search(_offline("the of and")).candidates == ()  # stop words only: no terms to match


def test_abstract_falls_back_to_an_inline_abstract_then_the_front_matter():
    def rec(i, kind, text, part="front", section=None):
        return {"id": f"r{i}", "kind": kind, "text": text, "part": part, "section": section}

    inline = {"records": [rec(0, "title", "T"), rec(1, "paragraph", "Jane Doe", ),
                          rec(2, "paragraph", "Abstract— We do X."), rec(3, "paragraph", "Body.", "body")],
              "removed": []}
    assert package_abstract(inline) == "We do X."
    front = {"records": [rec(0, "title", "T"), rec(1, "paragraph", "Jane Doe"), rec(2, "paragraph", "We do Y."),
                         rec(3, "paragraph", "Body.", "body")],
             "removed": [{"record_id": "r1", "reason": "author", "text": "Jane Doe"}]}
    assert package_abstract(front) == "We do Y."  # anonymized records stay out of the index
    body_only = {"records": [rec(0, "paragraph", f"P{i}.", "body") for i in range(5)], "removed": []}
    assert package_abstract(body_only) == "P0. P1. P2."
    long = {"records": [rec(0, "paragraph", "word " * 1000, section="Abstract")], "removed": []}
    cut = package_abstract(long)
    assert len(cut) <= 1500 and cut.endswith("…")


def test_corpus_reads_only_the_tail_on_refresh(demo_lake):
    corpus = LakeCorpus(demo_lake)
    v1, docs = corpus.refresh()
    assert [d.doc_id for d in docs] == ["lake:demo-001", "lake:demo-002", "lake:demo-003", "lake:demo-004"]
    assert corpus.refresh() == (v1, docs)  # nothing new: the same snapshot
