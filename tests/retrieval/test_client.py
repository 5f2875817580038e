"""The client: replay from the log, one paid search per request across threads and clients, an
event per attempt, retries with backoff."""

import threading

import pytest

from peerlake.ingest.related_work import import_related_work
from peerlake.retrieval import RetrievalClient, RetrievalFailed, RetrievalRequest
from tests.retrieval.s2_server import Reply


def _client(log, **kw) -> RetrievalClient:
    return RetrievalClient(log, backoff_base_s=0.01, backoff_max_s=0.05, **kw)


def _events(log) -> list:
    return sorted(log.iter_events("retrieval_call"), key=lambda e: e.event_id)


def s2_request(query: str = "low-rank adaptation", **kw) -> RetrievalRequest:
    return RetrievalRequest(backend="semantic_scholar", query=query, limit=3, **kw)


def test_request_key_is_identity_not_labels():
    base = RetrievalRequest(backend="offline", query="q", index_version="v")
    labelled = RetrievalRequest(backend="offline", query="q", index_version="v", purpose="p", subject_id="s",
                                study="st")
    assert base.request_key == labelled.request_key
    for other in (RetrievalRequest(backend="offline", query="q", index_version="w"),
                  RetrievalRequest(backend="offline", query="q", index_version="v", limit=5),
                  RetrievalRequest(backend="offline", query="q", index_version="v", year_max=2020),
                  RetrievalRequest(backend="semantic_scholar", query="q", index_version="v")):
        assert other.request_key != base.request_key
    with pytest.raises(ValueError):
        RetrievalRequest(backend="offline", query="q", limit=0)


def test_replay_writes_no_event_and_returns_the_same_candidates(log, write_jsonl):
    import_related_work(log, write_jsonl([{"id": "A", "title": "alpha beta", "abstract": "about alpha",
                                           "year": 2020, "venue": "V"}, {"id": "B", "title": "alpha gamma"}]))
    req = RetrievalRequest(backend="offline", query="alpha", purpose="judge_novelty_retrieval",
                           subject_id="human:r1", study="pilot")
    first = _client(log).search(req)
    assert not first.replayed and len(first.candidates) == 2
    (ev,) = _events(log)
    assert (ev.status, ev.n_results, ev.attempt, ev.purpose, ev.subject_id, ev.study) == (
        "ok", 2, 1, "judge_novelty_retrieval", "human:r1", "pilot")
    assert '"rank":0' in ev.results_json and '"score":' in ev.results_json
    log.seal()  # replay from sealed segments too, not only from the write-ahead file
    again = _client(log).search(req)  # a new client: a later run
    assert again.replayed and again.event_id == ev.event_id
    assert again.candidates == first.candidates
    assert len(_events(log)) == 1


def test_two_threads_asking_the_same_new_request_pay_once(log, s2):
    s2.delay_s = 0.5  # long enough that the second thread arrives while the first is searching
    client = _client(log)
    results = [None, None]

    def ask(i):
        results[i] = client.search(s2_request())

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(s2.requests) == 1
    assert sorted(r.replayed for r in results) == [False, True]
    assert results[0].candidates == results[1].candidates
    assert [e.status for e in _events(log)] == ["ok"]


def test_two_clients_on_one_lake_pay_once(log, s2):
    """Two clients with their own indexes of answered keys, as two processes would be."""
    s2.delay_s = 0.5
    clients = [_client(log), _client(log)]
    results = [None, None]
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, clients[i].search(s2_request())))
               for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(s2.requests) == 1
    assert sorted(r.replayed for r in results) == [False, True]


def test_an_error_is_an_event_and_is_retried(log, s2):
    s2.script(Reply(status=500), Reply(status=429, headers={"retry-after": "0"}))
    client = _client(log)
    result = client.search(s2_request())
    assert not result.replayed and len(s2.requests) == 3
    evs = _events(log)
    assert [(e.status, e.attempt, e.error_type) for e in evs] == [
        ("error", 1, "HTTP500"), ("error", 2, "HTTP429"), ("ok", 3, None)]
    assert evs[0].results_json is None and evs[0].n_results is None
    assert "scripted error 500" in evs[0].error_message
    assert (client.stats.failed_attempts, client.stats.searches_made) == (2, 1)


def test_retries_exhausted_then_a_later_run_continues_the_attempt_numbers(log, s2):
    s2.script(*[Reply(status=503)] * 3)
    with pytest.raises(RetrievalFailed, match="retries exhausted") as failed:
        _client(log, max_attempts=3).search(s2_request())
    assert failed.value.attempts == 3 and failed.value.error_type == "HTTP503"
    assert _client(log).search(s2_request()).replayed is False  # the server answers now
    assert [(e.status, e.attempt) for e in _events(log)] == [("error", 1), ("error", 2), ("error", 3), ("ok", 4)]


def test_a_bad_request_is_fatal_after_one_attempt(log, s2):
    s2.script(Reply(status=400, body={"error": "Unrecognized or unsupported fields: [foo]"}))
    with pytest.raises(RetrievalFailed, match="not retryable"):
        _client(log).search(s2_request())
    assert len(s2.requests) == 1
    assert [(e.status, e.error_type) for e in _events(log)] == [("error", "HTTP400")]


def test_search_many_keeps_order_and_returns_failures_in_their_slots(log, s2, write_jsonl):
    import_related_work(log, write_jsonl([{"id": "A", "title": "alpha"}]))
    s2.script(Reply(status=400))
    reqs = [RetrievalRequest(backend="offline", query="alpha"), s2_request(),
            RetrievalRequest(backend="nowhere", query="alpha")]
    out = _client(log, max_concurrency=1).search_many(reqs)
    assert [c.candidate_id for c in out[0].candidates] == ["related:A"]
    assert isinstance(out[1], RetrievalFailed)
    assert isinstance(out[2], ValueError) and "unknown retrieval backend" in str(out[2])
