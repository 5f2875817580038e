"""Reads come from the sealed segments plus unsealed WAL lines; sealing keeps one success per key."""

import json

import duckdb

from peerlake.warehouse import EventLog, Lake, LlmCall, PaperIngested
from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import to_json_line
from peerlake.warehouse.verify import verify_lake

REQUEST = b"the request"  # the blob every test call names: verify checks that named blobs exist
REQUEST_SHA = sha256_hex(REQUEST)


def _call(key: str, status: str = "ok", attempt: int = 1, text: str = "answer") -> LlmCall:
    return LlmCall(request_key=key, prompt_template="t", prompt_hash="h", reviewer_config="c", purpose="review",
                   subject_id="p", sample_index=0, provider="openai", model="m", params_json="{}",
                   request_sha256=REQUEST_SHA, response_sha256=None, response_text=text if status == "ok" else None,
                   finish_reason=None, input_tokens=1, cached_input_tokens=0, cache_write_tokens=None,
                   output_tokens=1, reasoning_tokens=None, cost_usd=0.001, cost_status="priced",
                   price_table_version="v", latency_ms=1.0, attempt=attempt, status=status)


def _forge(lake: Lake, name: str, events: list) -> None:
    """A write-ahead file written by hand, as another (buggy or racing) writer would leave it."""
    (lake.wal_dir / name).write_bytes(b"".join(to_json_line(e) for e in events))


def _sealed(lake: Lake, event_type: str, where: str = "true") -> list[tuple]:
    glob = lake.segment_glob(event_type)
    return duckdb.sql(f"select request_key, event_id from read_parquet('{glob}', union_by_name=true) "
                      f"where {where} order by event_id").fetchall()


def test_reads_survive_a_lost_wal_after_seal(lake):
    log = EventLog(lake)
    papers = [PaperIngested(paper_id=f"p{i}", title="t", source_uri="u", pdf_sha256="a" * 64,
                            package_sha256="b" * 64, n_pages=1, n_text_records=1, n_chars=1) for i in range(3)]
    log.append_many(papers[:2])
    log.seal()
    log.append(papers[2])  # not sealed yet: lives only in the WAL
    unsealed_copy = log.wal_path.read_bytes()
    log.wal_path.unlink()
    # The unsealed event went with the WAL (it had no other copy); the sealed two did not.
    assert [e.event_id for e in EventLog(lake).iter_events("paper_ingested")] == [p.event_id for p in papers[:2]]
    assert EventLog(lake).count("paper_ingested") == 2
    assert b'"p2"' in unsealed_copy


def test_a_new_wal_is_started_when_ours_is_removed(lake):
    log = EventLog(lake)
    log.append(_call("k0"))
    log.wal_path.unlink()
    log.append(_call("k1"))  # must land in a file that exists, not in the unlinked one
    assert [e.request_key for e in EventLog(lake).iter_events("llm_call")] == ["k1"]


def test_forged_duplicate_success_in_one_batch_is_sealed_apart(lake):
    log = EventLog(lake)
    first, error, forged = _call("k"), _call("k", status="error", attempt=2), _call("k", attempt=3, text="other")
    _forge(lake, "01AAAAAAAAAAAAAAAAAAAAAAAA-host-1.jsonl", [first, error, forged, _call("j")])
    report = log.seal()
    assert report.events_sealed == 4 and report.duplicates == 1
    ok_keys = [k for k, _ in _sealed(lake, "llm_call", "status = 'ok'")]
    assert sorted(ok_keys) == ["j", "k"]  # exactly one success per key
    assert _sealed(lake, "llm_call_duplicated") == [("k", forged.event_id)]  # still in the ledger
    assert ("k", first.event_id) in _sealed(lake, "llm_call", "status = 'ok'")
    log.blobs.put(REQUEST)
    assert verify_lake(log).ok


def test_duplicate_of_an_already_sealed_success_is_sealed_apart(lake):
    log = EventLog(lake)
    first = _call("k")
    log.append(first)
    log.seal()
    late = _call("k", attempt=2, text="paid twice")
    _forge(lake, "01ZZZZZZZZZZZZZZZZZZZZZZZZ-host-2.jsonl", [late])
    assert log.seal().duplicates == 1
    assert _sealed(lake, "llm_call", "status = 'ok'") == [("k", first.event_id)]
    assert _sealed(lake, "llm_call_duplicated") == [("k", late.event_id)]
    # Reads agree with the seal: the sealed answer comes first, the duplicate is its own type.
    oks = [e.event_id for e in EventLog(lake).iter_events("llm_call") if e.status == "ok"]
    assert oks == [first.event_id]
    [dup] = EventLog(lake).iter_events("llm_call_duplicated")
    assert dup.event_id == late.event_id and dup.response_text == "paid twice"


def test_v1_llm_call_lines_load_without_study_or_endpoint(lake):
    log = EventLog(lake)
    record = _call("old").to_record()
    record["schema_version"] = 1
    del record["study"], record["endpoint"]
    line = json.dumps({"event_type": "llm_call", "event": record}, separators=(",", ":"))
    (lake.wal_dir / "00OLD-host-1.jsonl").write_text(line + "\n")
    (ev,) = log.iter_events("llm_call")
    assert (ev.request_key, ev.study, ev.endpoint) == ("old", None, None)
    log.seal()
    (sealed,) = EventLog(lake).iter_events("llm_call")
    assert sealed.event_id == ev.event_id and sealed.study is None


def test_a_lost_segment_is_read_from_its_wal_range(lake):
    log = EventLog(lake)
    calls = [_call("a"), _call("b")]
    log.append_many(calls)
    log.seal()
    for seg in lake.segments_dir.glob("event_type=llm_call/*.parquet"):
        if "schema" not in seg.name:
            seg.unlink()
    assert [e.event_id for e in EventLog(lake).iter_events("llm_call")] == [c.event_id for c in calls]
    assert any("missing" in p for p in verify_lake(log).problems)
