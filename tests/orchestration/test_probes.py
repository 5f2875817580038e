"""The decimal-review and score-probe assets through the real gateway against a loopback server."""

import json
import math

import pytest
from dagster import DagsterInstance, materialize

from peerlake.metrics.distribution.probe import parse_probes
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.assets.probes import ai_reviews_decimal, score_probes
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from tests.doubles.fake_server import FakeLlmServer


def _schema(body: dict) -> dict:
    fmt = body.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}


def _tok(token, alts):
    return {"token": token, "logprob": math.log(alts.get(token, 1e-6)), "bytes": None,
            "top_logprobs": [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in alts.items()]}


class ProbeServer(FakeLlmServer):
    """Answers a probe like the local model does (score token after ' ', "1" among the candidates),
    the forced-10 continuation with P("0" | "1") = 0.3, and reviews in the review JSON shape."""

    def openai_answer(self, body: dict, number: int) -> dict:
        out = super().openai_answer(body, number)
        choice = out["choices"][0]
        enum = _schema(body).get("properties", {}).get("overall_score", {}).get("enum", [])
        if body.get("logprobs"):
            forced_ten = enum == [10]
            answer = "10" if forced_ten else "8"
            toks = [_tok('{"', {'{"': 1.0}), _tok("overall", {"overall": 1.0}), _tok('_score":', {'_score":': 1.0}),
                    # a per-request junk candidate keeps blobs distinct: concurrent writes of one identical
                    # blob collide in warehouse.fsutil.atomic_write (tmp name per pid, not per thread)
                    _tok(" ", {" ": 0.9, "8": 0.1, f"#{number}": 1e-4}),
                    _tok(answer[0], {"8": 0.5, "7": 0.3, "1": 0.2})]
            toks.append(_tok("0", {"0": 0.3, "}": 0.7}) if forced_ten else _tok("}", {"}": 1.0}))
            choice["message"]["content"] = json.dumps({"overall_score": int(answer)})
            choice["logprobs"] = {"content": toks}
        else:
            decimal = any(isinstance(v, float) for v in enum)
            score = (7 if number % 4 == 0 else 6.4) if decimal else 6  # every 4th decimal answer is whole
            choice["message"]["content"] = json.dumps({"summary": "s", "strengths": ["a"], "concerns": ["b"],
                                                       "rationale": "p. 1", "overall_score": score,
                                                       "confidence": 3})
        return out


@pytest.fixture
def probe_server():
    with ProbeServer() as server:
        yield server


def test_probe_and_decimal_assets_write_llm_call_events_and_replay(lake, probe_server, monkeypatch):
    monkeypatch.setenv("PEERLAKE_DEMO_ONLY", "demo-001,demo-002")
    monkeypatch.setenv("PEERLAKE_DECIMAL_SAMPLES", "2")
    monkeypatch.setenv("PEERLAKE_OPENAI_COMPATIBLE_API_KEY", "sk-test-probe")
    # the study `demo`'s reviewer comes from the settings, as for `peerlake demo`
    for name, value in {"PEERLAKE_PROVIDER": "openai_compatible", "PEERLAKE_MODEL": "fake-model",
                        "PEERLAKE_BASE_URL": probe_server.openai_base_url, "PEERLAKE_SAMPLES": "3"}.items():
        monkeypatch.setenv(name, value)
    resources = {"lake": LakeResource(root=str(lake.root)), "reviewer": ReviewerResource()}
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("studies", ["demo"])  # what `peerlake run demo` does first
    result = materialize([manuscripts, ai_reviews_decimal, score_probes], resources=resources,
                         instance=instance, partition_key="demo")
    assert result.success
    meta = {e.asset_key.to_user_string(): e.event_specific_data.materialization.metadata
            for e in result.get_asset_materialization_events()}
    assert meta["ai_reviews_decimal"]["reviews"].value == 4  # 2 papers × 2 decimal samples
    assert meta["score_probes"]["continuations"].value == 2  # "1" was a candidate, the answer was 8
    first_requests = probe_server.requests
    assert first_requests == 4 + 2 + 2

    from peerlake.warehouse import EventLog

    log = EventLog(lake)
    calls = list(log.iter_events("llm_call"))
    by_purpose = {}
    for c in calls:
        by_purpose.setdefault(c.purpose, []).append(c)
    assert {c.prompt_template for c in by_purpose["review"]} == {"reviewer_scoring_decimal"}
    assert len(by_purpose["score_probe"]) == 2 and len(by_purpose["score_probe_continuation"]) == 2
    assert all(c.logprobs_sha256 for c in by_purpose["score_probe"] + by_purpose["score_probe_continuation"])
    # the probe body asked for the top 20 and a score-only schema
    probe_bodies = [b for b in probe_server.bodies if b.get("logprobs")]
    assert all(b["top_logprobs"] == 20 for b in probe_bodies)

    # what the intermediate model computes from these events: P(10) = P("1")·P("0"|"1") = 0.2·0.3
    import pandas as pd

    frame = pd.DataFrame([{"llm_call_id": c.event_id, "request_key": c.request_key, "purpose": c.purpose,
                           "is_ok": c.status == "ok", "occurred_at": c.occurred_at, "subject_id": c.subject_id,
                           "reviewer_config": c.reviewer_config, "provider": c.provider, "model": c.model,
                           "prompt_hash": c.prompt_hash, "sample_index": c.sample_index, "params_json": c.params_json,
                           "response_text": c.response_text, "logprobs_sha256": c.logprobs_sha256} for c in calls])
    probes = parse_probes(frame, log.blobs.get_text)
    assert len(probes) == 2 and probes["is_parsed"].all()
    assert (probes["ten_method"] == "continuation").all()
    assert probes["prob_10"].tolist() == pytest.approx([0.2 * 0.3] * 2)
    assert probes["prob_1"].tolist() == pytest.approx([0.2 * 0.7] * 2)
    assert probes["prob_8"].tolist() == pytest.approx([0.5] * 2)

    # a second run replays every call: the server sees nothing new
    again = materialize([ai_reviews_decimal, score_probes], resources=resources, instance=instance,
                        partition_key="demo")
    assert again.success and probe_server.requests == first_requests
