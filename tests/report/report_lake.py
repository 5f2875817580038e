"""A small lake of real events for the granularity / probe marts and the report page: integer and
forced-decimal reviews of one model, score probes with logprob blobs, and human reviews."""

import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from peerlake.llm_calls.types import LlmRequest, canonical_json
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, LlmCall, PaperIngested
from tests.studies.cover import cover_everything

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
MODEL = "qwen-test"
N_PAPERS = 12


def _review(score) -> str:
    return json.dumps({"summary": "s", "strengths": ["a"], "concerns": ["b"], "rationale": "p. 1",
                       "overall_score": score, "confidence": 3})


def probe_logprobs(answer: int, probs: dict[str, float], after_one: float | None = None) -> list[dict]:
    """The gateway's logprob shape for `{"overall_score": <answer>}` from a Qwen-like tokenizer."""
    def pos(tok, alts):
        return {"token": tok, "logprob": math.log(alts.get(tok, 1e-6)),
                "top": [{"token": t, "logprob": math.log(p)} for t, p in alts.items()]}
    out = [pos('{"', {'{"': 0.9, "```": 0.1}), pos("overall", {"overall": 1.0}), pos('_score":', {'_score":': 1.0}),
           pos(" ", {" ": 0.9, "7": 0.1})]
    text = str(answer)
    out.append(pos(text[0], probs))
    if text == "10":
        out.append(pos("0", {"0": after_one, "}": 1 - after_one}))
    elif text == "1":
        out.append(pos("}", {"}": 1 - after_one, "0": after_one}))
    out.append(pos("}", {"}": 1.0}))
    return out


def _call(log: EventLog, req: LlmRequest, at: datetime, text: str, logprobs: list | None = None) -> LlmCall:
    lp_sha = log.blobs.put_text(canonical_json(logprobs)) if logprobs is not None else None
    return LlmCall(occurred_at=at, request_key=req.request_key, prompt_template=req.prompt_template,
                   prompt_hash=req.prompt_hash, reviewer_config=req.reviewer_config, purpose=req.purpose,
                   subject_id=req.subject_id, sample_index=req.sample_index, provider=req.provider,
                   model=req.model, params_json=json.dumps(req.params, sort_keys=True), request_sha256="0" * 64,
                   response_sha256="1" * 64, response_text=text, finish_reason="stop", input_tokens=900,
                   cached_input_tokens=0, cache_write_tokens=0, output_tokens=120, reasoning_tokens=0,
                   cost_usd=0.0, cost_status="free", price_table_version="t", latency_ms=10.0, attempt=1,
                   status="ok", logprobs_sha256=lp_sha)


def _req(template, paper, k, purpose="review", schema=None, top=None, params=None) -> LlmRequest:
    return LlmRequest(provider="local", model=MODEL, messages=({"role": "user", "content": paper},),
                      params=params or {"temperature": 0.7, "max_tokens": 700, "seed": 1000 + k},
                      response_schema=schema, top_logprobs=top, sample_index=k, prompt_template=template,
                      prompt_hash=f"h-{template}", purpose=purpose, subject_id=paper)


def build_report_lake(root: Path, seed: int = 0) -> dict:
    """Write the events and seal them; returns what a test needs to recompute the marts."""
    rng = np.random.default_rng(seed)
    log = EventLog(Lake(root))
    events, at = [], T0
    truth = {"integer": {}, "decimal": {}, "human": {}, "mu": {}}
    for i in range(N_PAPERS):
        paper = f"P{i:02d}"
        mu = int(rng.integers(3, 9))
        truth["mu"][paper] = mu
        events.append(PaperIngested(occurred_at=T0, paper_id=paper, title=paper, source_uri=f"file:///{paper}",
                                    pdf_sha256="a" * 64, package_sha256="b" * 64, n_pages=8, n_text_records=10,
                                    n_chars=1000, venue="TEST 2026"))
        ratings = [float(np.clip(mu + d, 1, 10)) for d in rng.integers(-2, 3, size=2)]
        truth["human"][paper] = float(np.mean(ratings))
        for j, rating in enumerate(ratings):
            events.append(HumanReviewImported(occurred_at=T0, paper_id=paper, review_id=f"{paper}-h{j}",
                                              source="test", venue="TEST 2026", rating=rating,
                                              rating_scale="TEST:1,2,3,4,5,6,7,8,9,10",
                                              confidence=3.0, body_sha256="e" * 64))
        ints = [int(np.clip(mu + d, 1, 10)) for d in rng.choice([-1, 0, 0, 1], size=5)]
        truth["integer"][paper] = ints
        for k, s in enumerate(ints):
            at += timedelta(seconds=1)
            events.append(_call(log, _req("reviewer_scoring", paper, k), at, _review(s)))
        decs = [float(np.clip(round(mu + 0.3 + rng.normal(0, 0.6), 1), 1.1, 9.9)) for _ in range(3)]
        decs = [d + 0.1 if d == int(d) else d for d in decs]
        if paper == "P00":
            decs[2] = 7  # a whole number under the decimal protocol: kept, flagged, not a score
        truth["decimal"][paper] = [d for d in decs if d != int(d)]
        for k, s in enumerate(decs):
            at += timedelta(seconds=1)
            events.append(_call(log, _req("reviewer_scoring_decimal", paper, k), at, _review(s)))
        # The probe's distribution sits one point above the reviews (the fit should learn the shift).
        c = min(mu + 1, 9)
        probs = {str(c): 0.6, str(c - 1): 0.15, str(c + 1): 0.15, "1": 0.05, "0": 0.03, "x": 0.02}
        answer = 1 if paper == "P01" else c
        if paper == "P01":
            probs = {"1": 0.5, str(c): 0.3, str(c - 1): 0.2}
        params = {"temperature": 0.0, "max_tokens": 16, "seed": 2000}
        probe = _req("score_probe", paper, 0, "score_probe", {"type": "object"}, 20, params)
        at += timedelta(seconds=1)
        events.append(_call(log, probe, at, json.dumps({"overall_score": answer}),
                            probe_logprobs(answer, probs, after_one=0.2)))
        if paper == "P02":  # the forced-10 continuation: P("0" | "1") = 0.25
            cont = _req("score_probe", paper, 0, "score_probe_continuation", {"type": "object", "x": 10}, 20, params)
            at += timedelta(seconds=1)
            events.append(_call(log, cont, at, json.dumps({"overall_score": 10}),
                                probe_logprobs(10, {"1": 0.05, str(c): 0.6}, after_one=0.25)))
    log.append_many(events)
    cover_everything(log)
    log.seal()
    log.close()
    return truth
