"""Every call's prompt template is in the lake byte for byte, once per hash; and each paid call names
the study that made it."""

import hashlib

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.prompts import load_template
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.verify import verify_lake
from tests.llm_calls.support import llm_events, providers_for, request


def _templated(template, **kw):
    return request(prompt_template=template.name, prompt_hash=template.hash, prompt_source=template.source, **kw)


def test_template_source_is_stored_once_before_its_first_call(make_gateway, server, lake_log):
    template = load_template("reviewer_scoring")
    gw = make_gateway()
    gw.call(_templated(template, sample_index=0))
    gw.call(_templated(template, sample_index=1))
    Gateway(EventLog(lake_log.lake), providers=providers_for(server)).call(_templated(template, sample_index=2))
    stored = list(lake_log.iter_events("prompt_template_stored"))
    assert len(stored) == 1 and server.requests == 3
    (ev,) = stored
    text = lake_log.blobs.get_text(ev.source_sha256)
    file_text = template.path.read_text(encoding="utf-8")
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == ev.prompt_hash
    assert hashlib.sha256(file_text.encode("utf-8")).hexdigest() == ev.prompt_hash and text == file_text
    # Written before the first llm_call naming the hash (WAL order = write order).
    order = [e.event_type for e in lake_log.iter_events() if e.event_type in ("llm_call", "prompt_template_stored")]
    assert order[0] == "prompt_template_stored"
    assert verify_lake(lake_log).ok


def test_a_source_that_is_not_the_hashed_text_is_refused_before_paying(make_gateway, server, lake_log):
    template = load_template("reviewer_scoring")
    with pytest.raises(ValueError, match="does not hash"):
        make_gateway().call(request(prompt_template=template.name, prompt_hash=template.hash,
                                    prompt_source=template.source + " "))
    assert server.requests == 0 and llm_events(lake_log) == []


def test_verify_names_a_template_whose_source_blob_is_gone(make_gateway, lake_log):
    template = load_template("score_probe")
    make_gateway().call(_templated(template))
    (ev,) = lake_log.iter_events("prompt_template_stored")
    lake_log.blobs.path(ev.source_sha256).unlink()
    assert any("source blob is missing" in p for p in verify_lake(lake_log).problems)


def test_each_paid_call_names_its_study_and_replays_write_nothing(make_gateway, server, lake_log):
    gw = make_gateway()
    gw.call(request(study="pilot"))
    shared = gw.call(request(study="main"))  # the same question from another study: replayed
    gw.call(request(sample_index=1, study="main"))
    assert shared.replayed and server.requests == 2
    assert [(e.sample_index, e.study) for e in llm_events(lake_log)] == [(0, "pilot"), (1, "main")]
