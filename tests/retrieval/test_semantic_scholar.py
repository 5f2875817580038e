"""The Graph API backend against a loopback server answering in the documented shape."""

import pytest

from peerlake.retrieval import RetrievalClient, RetrievalFailed, RetrievalRequest
from peerlake.retrieval.semantic_scholar import DEFAULT_BASEURL, SemanticScholarBackend
from tests.retrieval.conftest import S2_KEY
from tests.retrieval.s2_server import Reply


def _client(log) -> RetrievalClient:
    return RetrievalClient(log, backoff_base_s=0.01, backoff_max_s=0.05)


def _req(**kw) -> RetrievalRequest:
    kw.setdefault("query", "low-rank adaptation of language models")
    return RetrievalRequest(backend="semantic_scholar", limit=3, **kw)


def test_search_sends_the_documented_query_and_reads_the_answer(log, s2):
    result = _client(log).search(_req(year_max=2020))
    (sent,) = s2.requests
    assert sent["path"] == "/graph/v1/paper/search"
    assert sent["params"] == {"query": ["low-rank adaptation of language models"], "limit": ["3"],
                              "fields": ["title,abstract,year,venue,externalIds,url"], "year": ["-2020"]}
    assert "x-api-key" not in sent["headers"]  # no key configured: none sent
    lora, houlsby, bare = result.candidates
    assert lora.candidate_id == "s2:0b1c2d3e4f5a69788796a5b4c3d2e1f00a1b2c3d"
    assert (lora.title, lora.year, lora.venue) == ("LoRA: Low-Rank Adaptation of Large Language Models", 2021,
                                                   "International Conference on Learning Representations")
    assert houlsby.abstract is None  # null in the answer stays unknown
    assert (bare.venue, bare.year) == (None, None)  # "" venue and null year: unknown, not empty
    # No scores from this API: callers rank by position.
    assert [(c.rank, c.score, c.score_norm) for c in result.candidates] == [(0, None, None), (1, None, None),
                                                                            (2, None, None)]


def test_a_429_then_200_is_one_answer_after_one_recorded_failure(log, s2):
    s2.script(Reply(status=429, headers={"retry-after": "0"}, body={"message": "Too Many Requests"}))
    result = _client(log).search(_req())
    assert len(result.candidates) == 3 and len(s2.requests) == 2
    assert [(e.status, e.error_type) for e in log.iter_events("retrieval_call")] == [("error", "HTTP429"),
                                                                                     ("ok", None)]


def test_a_400_is_fatal(log, s2):
    s2.script(Reply(status=400, body={"error": "Query param 'limit' must be <= 100"}))
    with pytest.raises(RetrievalFailed, match="HTTP400"):
        _client(log).search(_req())
    assert len(s2.requests) == 1


def test_no_hits_and_garbled_answers(log, s2):
    s2.script(Reply(body={"total": 0, "offset": 0}))  # the API leaves `data` out when nothing matched
    assert _client(log).search(_req(query="nothing matches")).candidates == ()
    s2.script(Reply(raw_body=b"<html>gateway hiccup</html>"))  # a 200 that is not JSON: retried
    assert len(_client(log).search(_req(query="hiccup")).candidates) == 3
    assert [e.error_type for e in log.iter_events("retrieval_call") if e.status == "error"] == ["BadResponse"]


def test_a_server_that_is_not_there_is_retried_then_fails(log, monkeypatch):
    monkeypatch.setenv("PEERLAKE_S2_BASEURL", "http://127.0.0.1:9/graph/v1")  # discard port: refused
    with pytest.raises(RetrievalFailed, match="retries exhausted"):
        _client(log).search(_req())
    assert [e.error_type for e in log.iter_events("retrieval_call")] == ["ConnectionError"] * 3


def test_a_non_default_endpoint_is_part_of_the_request(s2):
    test_server = SemanticScholarBackend().bind(_req())
    assert test_server.index_version == f"endpoint:{s2.base_url}"
    assert SemanticScholarBackend(base_url=DEFAULT_BASEURL + "/").bind(_req()).index_version is None


def test_the_api_key_is_sent_but_never_stored(log, s2, monkeypatch):
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", S2_KEY)
    # A proxy echoing the key into its errors, a rate limit, then the answer; then a fatal echo.
    s2.script(Reply(status=503, echo_key=True), Reply(status=429, echo_key=True, headers={"retry-after": "0"}))
    assert len(_client(log).search(_req()).candidates) == 3
    s2.script(Reply(status=403, echo_key=True))
    with pytest.raises(RetrievalFailed) as failed:
        _client(log).search(_req(query="another query"))
    assert S2_KEY not in str(failed.value) and S2_KEY[:12] not in str(failed.value)
    assert all(r["headers"].get("x-api-key") == S2_KEY for r in s2.requests)
    log.seal()
    events = list(log.iter_events("retrieval_call"))
    assert [e.status for e in sorted(events, key=lambda e: e.event_id)] == ["error", "error", "ok", "error"]
    assert "[REDACTED]" in min(events, key=lambda e: e.event_id).error_message
    for ev in events:
        assert not any(isinstance(v, str) and S2_KEY[:8] in v for v in ev.to_record().values())
    # Every file of the lake (write-ahead lines, blobs, segments, manifests), byte for byte.
    for path in log.lake.root.rglob("*"):
        if path.is_file():
            assert S2_KEY.encode() not in path.read_bytes(), path
