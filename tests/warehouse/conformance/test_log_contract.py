"""The EventLog contract callers rely on, on both manifest layouts: a lake on this disk (manifests named by
write-ahead range, the layout every local lake was written in) and a lake URL on each store (numbered
manifests). Only the public API is used, so the two layouts must agree on every answer."""

import dataclasses

import pytest

from peerlake.warehouse.events import HumanReviewImported, LlmCall, new_event_id
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.verify import verify_lake
from tests.warehouse.conformance.support import paper


@pytest.fixture
def log(any_lake) -> EventLog:
    """A lake on this disk (no URL), or one whose URL names a store (a local folder, memory, S3)."""
    return EventLog(any_lake)


def _call(log: EventLog, key: str, **kw) -> LlmCall:
    call = LlmCall(request_key=key, prompt_template=None, prompt_hash=None, reviewer_config="c", purpose="review",
                   subject_id="p0", sample_index=0, provider="openai", model="m", params_json="{}",
                   request_sha256=log.blobs.put(b"{}"), response_sha256=log.blobs.put(b'{"a": 1}'),
                   response_text="answer", finish_reason="stop", input_tokens=1, cached_input_tokens=0,
                   cache_write_tokens=None, output_tokens=1, reasoning_tokens=None, cost_usd=0.0,
                   cost_status="priced", price_table_version="v", latency_ms=1.0, attempt=1, status="ok")
    return dataclasses.replace(call, **kw)


def test_sealed_and_unsealed_reads_agree_and_a_second_seal_seals_nothing(log):
    sent = [log.append(paper(log, i)) for i in range(3)]
    assert [e.event_id for e in log.iter_events("paper_ingested")] == [e.event_id for e in sent]
    report = log.seal()
    assert report.events_sealed == 3 and report.head == log.head()
    assert [e.event_id for e in log.reader().iter_events("paper_ingested")] == [e.event_id for e in sent]
    assert log.seal().events_sealed == 0
    log.append(paper(log, 3))
    assert [e.paper_id for e in log.iter_events("paper_ingested")] == ["p0", "p1", "p2", "p3"]
    report = verify_lake(log)
    assert report.ok and not report.warnings, (report.problems, report.warnings)
    assert report.head == log.head()


def test_count_and_typed_reads_agree_with_a_full_decode(log):
    log.append_many([paper(log, i) for i in range(4)])
    log.seal()
    log.append(HumanReviewImported(paper_id="p1", review_id="r1", source="t", venue=None, rating=5.0,
                                   rating_scale=None, confidence=None, body_sha256=log.blobs.put(b"review")))
    log.append(paper(log, 9))
    every = list(log.iter_events())
    for etype in ("paper_ingested", "human_review_imported", "llm_call"):
        typed = [e.event_id for e in log.iter_events(etype)]
        assert typed == [e.event_id for e in every if e.event_type == etype]
        assert log.count(etype) == len(typed)
    assert log.count("paper_ingested") == 5


def test_tail_returns_each_new_event_once(log):
    log.append(paper(log, 0))
    reader = log.reader()
    assert [e.paper_id for e in reader.tail(["paper_ingested"])] == ["p0"]
    log.append(paper(log, 1))
    log.seal()
    assert [e.paper_id for e in reader.tail(["paper_ingested"])] == ["p1"]
    assert reader.tail(["paper_ingested"]) == []


def test_a_second_success_for_a_key_is_sealed_apart_in_one_batch_and_after_a_seal(log):
    first = log.append(_call(log, "k"))
    log.append(_call(log, "k", attempt=2, status="error"))
    second = log.append(dataclasses.replace(first, event_id=new_event_id(), attempt=3))
    assert log.seal().duplicates == 1
    late = log.append(dataclasses.replace(first, event_id=new_event_id(), attempt=4, response_text="paid twice"))
    assert log.seal().duplicates == 1
    fresh = log.reader()
    assert [e.event_id for e in fresh.iter_events("llm_call") if e.status == "ok"] == [first.event_id]
    assert sorted(e.event_id for e in fresh.iter_events("llm_call_duplicated")) == sorted(
        [second.event_id, late.event_id])
    assert verify_lake(log).ok
