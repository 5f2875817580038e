"""The event log on a shared store: what one machine seals, another reads; dbt's glob sees it once; a second
success for a key is sealed apart; a gateway on another machine replays."""

import dataclasses

from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.events import new_event_id
from peerlake.warehouse.verify import verify_lake
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, providers_for, request
from tests.warehouse.conformance.support import committed_rows, keys, machine, paper


def test_what_one_machine_seals_another_reads(tmp_path, store_url):
    a = machine(tmp_path, "a", store_url)
    assert a.chain is not None  # a lake URL commits numbered manifests to the store
    sent = [a.append(paper(a, i)) for i in range(3)]
    b = machine(tmp_path, "b", store_url)
    assert list(b.iter_events("paper_ingested")) == []  # not sealed yet: still only on machine a
    assert [e.event_id for e in a.iter_events("paper_ingested")] == [e.event_id for e in sent]  # a reads its WAL

    assert a.seal().events_sealed == 3
    assert [e.paper_id for e in b.iter_events("paper_ingested")] == ["p0", "p1", "p2"]
    assert b.count("paper_ingested") == 3
    assert b.blobs.get(sent[0].pdf_sha256) == b"pdf of paper 0"  # blobs went up before the events
    assert [e.paper_id for e in b.catch_up(["paper_ingested"])] == ["p0", "p1", "p2"]

    a.append(paper(a, 3))
    b.append(paper(b, 4))
    assert [e.paper_id for e in b.tail(["paper_ingested"])] == ["p4"]  # b's own, from its WAL
    a.seal()
    assert [e.paper_id for e in b.tail(["paper_ingested"])] == ["p3"]  # a's, once committed
    assert b.tail(["paper_ingested"]) == []
    b.seal()
    # dbt reads the committed segments with a glob: every event exactly once, staging empty.
    rows = committed_rows(store_url, "paper_ingested")
    assert sorted(r["paper_id"] for r in rows) == ["p0", "p1", "p2", "p3", "p4"]
    assert keys(store_url, "events/staging/") == []
    assert machine(tmp_path, "c", store_url).count("paper_ingested") == 5
    report = verify_lake(a)
    assert report.ok, report.problems
    assert report.checked_blobs == 10 and report.head.seq == 5  # genesis, schema, three seals


def test_a_torn_last_line_is_not_sealed_and_the_rest_is(tmp_path, store_url):
    a = machine(tmp_path, "a", store_url)
    a.append(paper(a, 0))
    with open(a.wal_path, "ab") as fh:
        fh.write(b'{"event_type":"paper_ingested","event_id":"01TORN')  # a writer killed mid-write
    assert a.seal().events_sealed == 1
    assert [e.paper_id for e in machine(tmp_path, "b", store_url).iter_events("paper_ingested")] == ["p0"]
    report = verify_lake(a)
    assert report.ok, report.problems


def test_a_second_success_for_a_key_is_sealed_as_a_duplicate_across_machines(tmp_path, store_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    a, b = machine(tmp_path, "a", store_url), machine(tmp_path, "b", store_url)
    with FakeLlmServer() as server:
        answer = Gateway(a, providers=providers_for(server)).call(request())  # its claim seals it
    (sealed,) = a.iter_events("llm_call")
    # Machine b holds a second success for the same key (what a claim prevents; a forged or lost-claim
    # line in its WAL): it was paid, so it is kept, but where replay and the marts do not count it.
    b.append(dataclasses.replace(sealed, event_id=new_event_id()))
    assert b.seal().duplicates == 1
    assert [e.response_text for e in machine(tmp_path, "c", store_url).iter_events("llm_call")] == [answer.text]
    assert len(committed_rows(store_url, "llm_call")) == 1
    assert len(committed_rows(store_url, "llm_call_duplicated")) == 1


def test_a_gateway_on_another_machine_replays_from_the_committed_segments(tmp_path, store_url, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    batch = [request(sample_index=i) for i in range(4)]
    with FakeLlmServer() as server:
        first = Gateway(machine(tmp_path, "a", store_url), providers=providers_for(server)).call_many(
            batch, progress=False)
        assert server.requests == 4
        # Each call's claim sealed its answer before releasing: machine b sees all four without a seal.
        again = Gateway(machine(tmp_path, "b", store_url), providers=providers_for(server)).call_many(
            batch, progress=False)
    assert server.requests == 4
    assert all(r.replayed for r in again)
    assert [r.text for r in again] == [r.text for r in first]
