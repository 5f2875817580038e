"""A small lake for the viewer, built by dbt (the viewer reads the published marts and the blobs): calls made
through the real gateway against the loopback server (a review of P1 whose answer holds a <script>, a review of P2 made
by study `a` and replayed by study `b`, a failed attempt before an answer), a depth judgment of the P1
review with two verbatim units, and a two-step system run. Built once per test session (tests/shared_lakes.py)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from peerlake.judging.reviews import peerlake_reviews
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.types import LlmRequest
from peerlake.report.viewer.catalog import VIEWER_MARTS
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.attribution import attributed
from peerlake.warehouse.events import JudgmentRecorded, SystemReviewRecorded
from tests.audit.audit_lake import dbt_run
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.llm_calls.support import FAKE_KEYS, providers_for

HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"
REVIEW_P1 = {"summary": "The paper proposes a sparse attention scheme.",
             "strengths": ["Clear ablations on three datasets."],
             "concerns": ["The baselines are weak. " + HOSTILE],
             "rationale": "Solid but incremental.", "overall_score": 6, "confidence": 3}
UNITS = ("Clear ablations on three datasets.", "The baselines are weak.")


def openai_body(text: str, n: int = 1) -> dict:
    return {"id": f"chatcmpl-v{n}", "object": "chat.completion", "created": 0, "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": None}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}}


def review_request(paper: str, purpose: str = "review", **kw) -> LlmRequest:
    kw.setdefault("messages", ({"role": "system", "content": "You review papers. <b>not bold</b>"},
                               {"role": "user", "content": f"Review the manuscript {paper}."}))
    return LlmRequest(provider="openai", model="gpt-4.1-mini", params={"temperature": 0.7, "max_tokens": 50},
                      prompt_template="review_v1", prompt_hash="abc123", subject_id=paper, purpose=purpose,
                      response_schema={"type": "object"}, **kw)


@dataclass
class ViewerLake:
    root: Path
    calls: dict[str, str] = field(default_factory=dict)  # name -> llm_call event id
    db: Path | None = None  # the marts dbt built from it


def build_and_run(work: Path) -> ViewerLake:
    """The viewer lake under work/lake, its viewer marts built by `dbt run` into the lake's published file."""
    with pytest.MonkeyPatch.context() as mp:
        lake = build_viewer_lake(work / "lake", mp)
    lake.db = dbt_run(lake.root, work, VIEWER_MARTS)
    return lake


def build_viewer_lake(root: Path, monkeypatch) -> ViewerLake:
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PEERLAKE_HOME", str(root))
    lake = Lake(root).ensure()
    log = EventLog(lake)
    out = ViewerLake(root)
    with FakeLlmServer() as server:
        gw = Gateway(log, providers=providers_for(server), backoff_base_s=0.01, backoff_max_s=0.05)
        with attributed(study="a"):
            server.script(Reply(body=openai_body(json.dumps(REVIEW_P1))))
            out.calls["hostile"] = gw.call(review_request("P1")).event_id
            server.script(Reply(status=500), Reply(body=openai_body(json.dumps({**REVIEW_P1, "overall_score": 4}), 2)))
            out.calls["P2"] = gw.call(review_request("P2")).event_id
            steps = []
            for i, step in enumerate(("draft", "refine")):
                req = review_request("P3", purpose="system_review", system="mlr", system_config="e" * 16,
                                     step=step, round=0, messages=({"role": "user", "content": f"{step} P3"},))
                server.script(Reply(body=openai_body(json.dumps({"step": step}), 10 + i)))
                res = gw.call(req)
                out.calls[step] = res.event_id
                steps.append({"request_key": res.request_key, "llm_call_id": res.event_id, "step": step,
                              "round": 0, "member": 0})
        with attributed(study="b"):
            assert gw.call(review_request("P2")).replayed  # study b replays what study a paid for
        server.script(Reply(body=openai_body(json.dumps({"units": list(UNITS)}), 20)))
        judge = gw.call(review_request("review-P1", purpose="judge_depth_units"))
        out.calls["judge"] = judge.event_id
    (review,) = peerlake_reviews(log, ["P1"])
    text = review.for_judge("depth").text
    units = [{"unit_index": i, "text": u, "start": text.index(u), "field": None, "role": "claim", "aspect": "method"}
             for i, u in enumerate(UNITS)]
    log.append(JudgmentRecorded(judgment_key="j1", judge="depth", step="units", judge_config="d" * 16,
                                subject_key=review.review_key, paper_id="P1", repeat=0, status="ok", null_reason=None,
                                units_json=json.dumps(units), dropped_json="{}",
                                llm_call_ids_json=json.dumps([judge.event_id]),
                                request_keys_json="[]", study="a"))
    log.append(SystemReviewRecorded(review_key="s1", system="mlr", system_config="e" * 16, system_version=1,
                                    paper_id="P3", package_sha256="0" * 64, sample_index=0, provider="openai",
                                    model="gpt-4.1-mini", status="ok", null_reason=None,
                                    review_json=json.dumps({"summary": "ok " + HOSTILE}), score=5.0,
                                    score_scale="neurips_1_10", confidence=None, calls_json=json.dumps(steps),
                                    options_json="{}", study="a"))
    log.seal()  # into segments, which dbt reads (as a build seals before it runs)
    log.close()
    return out
