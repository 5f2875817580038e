"""What every judge shares: verbatim spans, judge identity, and recording each judgment once."""

import json

from peerlake.judging.base import JudgeConfig, Judgment, Recorder, find_verbatim
from peerlake.llm_calls.types import LlmResult, Usage
from peerlake.warehouse import EventLog, Lake


def test_a_span_is_verbatim_up_to_whitespace_and_quotes_only():
    text = "Summary:\nThe method is   new.\nWeaknesses:\nNo error bars\non Table 2."
    assert find_verbatim("The method is new.", text) == 9
    assert find_verbatim('"No error bars on Table 2."', text) == text.index("No error")
    assert find_verbatim("no error bars", text) is None  # case is the reviewer's
    assert find_verbatim("The method is novel.", text) is None  # a paraphrase is not a span
    assert find_verbatim("   ", text) is None
    assert find_verbatim("No error", text, start=text.index("No error") + 1) is None


def test_judge_identity_changes_with_the_model_and_temperature_not_with_repeats():
    a = JudgeConfig(provider="local", model="m", repeats=1)
    assert a.identity("depth", ["reviewer_scoring"]) == JudgeConfig(provider="local", model="m",
                                                                   repeats=5).identity("depth", ["reviewer_scoring"])
    assert a.identity("depth", ["reviewer_scoring"]) != JudgeConfig(provider="local", model="n").identity(
        "depth", ["reviewer_scoring"])
    assert a.identity("depth", ["reviewer_scoring"]) != JudgeConfig(provider="local", model="m",
                                                                   temperature=0.7).identity(
        "depth", ["reviewer_scoring"])
    assert a.identity("depth", ["reviewer_scoring"]) != a.identity("novelty", ["reviewer_scoring"])
    assert a.params(2)["seed"] == 3002 and a.params(0, max_tokens=10_000)["max_tokens"] == 700


def _result(key, event_id):
    return LlmResult(request_key=key, event_id=event_id, text="{}", parsed={}, usage=Usage(), cost_usd=0.0,
                     replayed=False)


def test_a_judgment_is_recorded_once_and_a_failed_call_not_at_all(tmp_path):
    log = EventLog(Lake(tmp_path / "lake"))
    j = Judgment(judge="depth", step="units", subject_key="human:r1", paper_id="P1", repeat=0,
                 units=[{"unit_index": 0, "text": "x"}], dropped={"not_verbatim": 1},
                 results=[_result("k1", "e1"), _result("k2", "e2")], inputs={"fields": ["summary"]})
    rec = Recorder(log, "cfg", "1", study="s")
    ev = rec.record(j)
    assert ev is not None and ev.status == "ok" and json.loads(ev.units_json) == j.units
    assert json.loads(ev.llm_call_ids_json) == ["e1", "e2"] and json.loads(ev.inputs_json) == {"fields": ["summary"]}
    # the same judgment again, in this process or a new one: nothing written
    assert rec.record(j) is None and Recorder(log, "cfg", "1").record(j) is None
    # a new parser version is a new judgment of the same calls
    assert Recorder(log, "cfg", "2").record(j) is not None
    null = Judgment(judge="depth", step="units", subject_key="human:r2", paper_id="P1", repeat=0,
                    units=[{"ignored": True}], null_reason="no_units")
    ev = rec.record(null)
    assert (ev.status, ev.null_reason, ev.units_json) == ("null", "no_units", "[]")
    failed = Judgment(judge="depth", step="units", subject_key="human:r3", paper_id="P1", repeat=0,
                      failed_call="LlmCallFailed: 400")
    assert rec.record(failed) is None and rec.failed == 1
    assert sum(1 for _ in log.iter_events("judgment_recorded")) == 3
    log.close()
