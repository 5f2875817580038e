"""Every call says who made it (study, Dagster run, asset), across the gateway's worker threads; replays
are counted, not hidden; the price table a call was priced with is in the lake."""

import json

from peerlake.warehouse.attribution import attributed, current
from peerlake.warehouse.log import EventLog
from tests.llm_calls.support import request


def test_calls_carry_the_context_labels_from_worker_threads(make_gateway, lake_log):
    gw = make_gateway(max_concurrency=3)
    with attributed(study="s1", dagster_run_id="run-1", asset="ai_reviews"):
        gw.call_many([request(sample_index=i) for i in range(4)], progress=False)
    gw.call(request(sample_index=9))  # outside any context: a CLI call, unlabelled
    calls = {e.sample_index: e for e in EventLog(lake_log.lake).iter_events("llm_call")}
    assert {(calls[i].study, calls[i].dagster_run_id, calls[i].asset) for i in range(4)} == {
        ("s1", "run-1", "ai_reviews")}
    assert (calls[9].study, calls[9].dagster_run_id, calls[9].asset) == (None, None, None)
    assert current().study is None  # the block's labels do not leak out of it


def test_a_request_study_wins_over_the_context(make_gateway, lake_log):
    with attributed(study="outer"):
        make_gateway().call(request(study="own"))
    (ev,) = EventLog(lake_log.lake).iter_events("llm_call")
    assert ev.study == "own"


def test_replays_are_counted_in_one_event_per_batch(make_gateway, lake_log, server):
    batch = [request(sample_index=i) for i in range(3)]
    first = make_gateway().call_many(batch, progress=False)
    with attributed(study="s2", dagster_run_id="run-2", asset="ai_reviews"):
        make_gateway().call_many(batch, progress=False)
    assert server.requests == 3  # the second batch paid nothing
    (rep,) = EventLog(lake_log.lake).iter_events("calls_replayed")
    assert (rep.door, rep.n, rep.study, rep.dagster_run_id) == ("llm", 3, "s2", "run-2")
    by_key = dict(zip(json.loads(rep.request_keys_json), json.loads(rep.answer_event_ids_json), strict=True))
    assert by_key == {r.request_key: r.event_id for r in first}


def test_the_price_table_is_recorded_once_before_the_first_paid_call(make_gateway, lake_log):
    gw = make_gateway()
    gw.call(request(sample_index=0))
    make_gateway().call(request(sample_index=1))  # a second gateway: the version is already stored
    (pt,) = EventLog(lake_log.lake).iter_events("price_table_recorded")
    assert pt.version == gw.prices.version
    assert lake_log.blobs.get_text(pt.source_sha256) == gw.prices.source_text
    rows = {(r["provider"], r["model"]): r for r in json.loads(pt.prices_json)}
    assert rows[("openai", "gpt-4.1-mini")]["input"] == 0.40  # prices.toml: $0.40 per million input tokens
